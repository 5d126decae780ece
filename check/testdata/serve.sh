#!/bin/sh
# Launch Llama 3.1 8B at its full 128k context on one GPU.
set -e
MODEL=meta-llama/Llama-3.1-8B-Instruct
export VLLM_ALLOW_LONG_MAX_MODEL_LEN=1

exec vllm serve "$MODEL" \
  --max-model-len 131072 \
  --max-num-seqs 64 \
  --gpu-memory-utilization 0.92
