package membudget

import "membudget/budget"

// Devices people ask for that ship no class on purpose. Each reason is what
// `--class NAME` answers; README.md ("Devices that are not classes") gives
// the sources.
var (
	// vLLM's Gaudi support is the out-of-tree vLLM Hardware Plugin for
	// Intel Gaudi (vllm-gaudi, Gaudi 2 and 3: docs.vllm.ai/projects/gaudi,
	// its FAQ and overview: bucketing, its own graph caching and warm-up);
	// vLLM's own tree keeps only its KV dtype name (vllm/config/cache.py:80
	// at main d18bb7b: "Intel Gaudi (HPU) supports fp8 (using fp8_inc)").
	// None of it is the CUDA or ROCm worker the vLLM profiles size.
	gaudi = budget.Absence{
		Device: "Intel Gaudi (Gaudi 2, Gaudi 3)",
		Why:    "vLLM runs on Gaudi through the vllm-gaudi plugin (HPU), an engine path membudget does not model (its own warm-up, HPU graphs and memory profile); membudget refuses it rather than size it by the CUDA worker's rules",
	}
	// vLLM's ROCm platform names the part (vllm/platforms/rocm.py at
	// d18bb7b: device 0x1586 "AMD_Radeon_8060S", gfx1151) and its install
	// docs list gfx1151 from ROCm 7.0.2, but the figures a class needs are
	// the host's, not the part's (README.md).
	strixHalo = budget.Absence{
		Device: "AMD Ryzen AI Max+ 395 (Strix Halo, Radeon 8060S, gfx1151)",
		Why:    "vLLM runs on it through ROCm, but the memory its GPU gets is the host's boot setting (the BIOS carve-out and the GTT limit, ttm.pages_limit / amdgpu.gttsize: public HIP totals run from 15.5 to 124 GiB), and vLLM's ROCm platform reads free memory from HIP, not the host's available memory as on the CUDA integrated GPUs, so no one memory_bytes, held share or util ceiling stands for the device (README: Devices that are not classes)",
	}
	absentDevices = map[string]budget.Absence{
		"gaudi": gaudi, "gaudi2": gaudi, "gaudi-2": gaudi, "gaudi3": gaudi, "gaudi-3": gaudi, "hpu": gaudi,
		"strix-halo": strixHalo, "strixhalo": strixHalo, "gfx1151": strixHalo, "radeon-8060s": strixHalo,
		"8060s": strixHalo, "ryzen-ai-max-395": strixHalo,
	}
)
