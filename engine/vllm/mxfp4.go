package vllm

import "membudget/model"

// The MXFP4 kernels of vLLM main (oracle/mxfp4.py:314-334 picks them by
// device, :640-694 rounds): Triton on Hopper (SM90 up to SM110) rounds the
// intermediate to 64 and converts the biases to float32; Marlin (Ampere,
// Ada, SM120) rounds it to 128 and the hidden size to 256 and keeps the
// biases in the model dtype (marlin_utils_fp4.py:672-683); FlashInfer's
// TRTLLM kernels (Blackwell SM100) round as Marlin does with float32
// biases.
var (
	MXFP4Triton = model.MXFP4Kernel{IntermediateMultiple: 64, HiddenMultiple: 1, BiasFloat32: true}
	MXFP4Marlin = model.MXFP4Kernel{IntermediateMultiple: 128, HiddenMultiple: 256}
	MXFP4TRTLLM = model.MXFP4Kernel{IntermediateMultiple: 128, HiddenMultiple: 256, BiasFloat32: true}
)
