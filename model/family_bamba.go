package model

// Bamba (BambaForCausalLM, ibm-ai-platform/Bamba-9B's model_type bamba) is
// refused by name. vLLM's registry at d18bb7b lists it among the
// architectures it no longer serves: "was supported in vLLM until
// v0.23.0" (registry.py:783 _PREVIOUSLY_SUPPORTED_MODELS, and the error
// of :1139-1147), removed by PR #45990 (merged 2026-06-18, commit
// d682968aa, which deleted bamba.py). The releases that served it built
// MambaMixer2 layers and attention layers by layers_block_type
// (bamba.py:95-150, 290 at d682968aa^), but membudget keeps one list of
// architectures, vLLM main's, and no per-release one: it cannot size Bamba
// for those releases while refusing it for the later ones. Read as a
// generic decoder it would be sized with every layer attention, which no
// release of vLLM does: an answer the engine contradicts.
const bambaRefusal = "BambaForCausalLM is no longer served by vLLM: registry.py at main d18bb7b says it \"was supported in vLLM until v0.23.0\" (_PREVIOUSLY_SUPPORTED_MODELS, :783; removed by PR #45990, 2026-06-18), and vLLM raises that error at startup; membudget sizes the architectures of vLLM main and has no per-release list, so the releases that still served it (MambaMixer2 and attention layers, bamba.py) are not sized either"

func init() {
	refusedModelTypes["bamba"] = bambaRefusal
}
