#!/bin/sh
# Llama 3.1 8B at its full context on one L4: vLLM refuses it.
vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 131072 --gpu-memory-utilization 0.9
