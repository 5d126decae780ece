package vllm

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"membudget/budget"
	"membudget/engine"
	"membudget/engine/torchalloc"
	"membudget/internal/shell"
	"membudget/model"
)

// This file sizes --enable-lora: the adapter slots vLLM's LoRA layers
// allocate on every GPU, the punica wrapper's metadata, the profile run's
// shrink buffer, the graphs captured once more, and the adapters cached in
// host memory. Every shape is vLLM main's at commit d18bb7b (2026-08-14);
// the files are under vllm/lora/. The releases from 0.14.0 allocate the
// same (loraSince), but for the differences loraReleaseRefusal,
// loraVocabLimit and loraEmbeds name.

// LoRA is a serve's LoRA settings under vLLM's flag names. Enable false
// is a serve without LoRA: vLLM builds no LoRA config then, and the other
// flags change nothing (vllm/engine/arg_utils.py create_lora_config).
type LoRA struct {
	Enable       bool   // --enable-lora
	MaxLoras     uint64 // --max-loras: GPU slots (0: vLLM's default 1)
	MaxRank      uint64 // --max-lora-rank (0: vLLM's default 16)
	MaxCPULoras  uint64 // --max-cpu-loras: adapters cached in host memory (0: --max-loras)
	FullySharded bool   // --fully-sharded-loras
	// Dtype is --lora-dtype: auto (the model's), float16 or bfloat16.
	Dtype string
	// Modules is --lora-modules as given (adapters separated by spaces);
	// Adapters is what their adapter_config.json files say, read when the
	// flag was parsed (see [ReadAdapter]).
	Modules  string
	Adapters Adapters
}

// Adapter is one --lora-modules adapter: NAME=PATH, or the JSON object
// vLLM also takes.
type Adapter struct {
	Name, Path string
	// Rank is adapter_config.json's "r", Bias its "bias"; Read says the
	// file was read (PATH is a local directory). An adapter of the Hub is
	// not read: membudget does not download adapters.
	Rank uint64
	Bias string
	Read bool
}

// Adapters is what the --lora-modules adapters read from local
// directories say, kept comparable so that a serve is: the largest rank
// and the adapter that has it, and the first adapter with a bias.
type Adapters struct {
	MaxRank       uint64
	MaxRankOf     string // NAME=PATH of the adapter of MaxRank
	Bias, BiasOf  string // the first bias other than "none", and its adapter
	Read, NotRead uint64 // adapters read, and adapters of the Hub (not read)
}

// loraSince is the first release whose LoRA layers membudget sizes. The
// layer shapes, the punica metadata, the profile's shrink buffer and the
// two graph cases it sizes are main's (d18bb7b) in vLLM main at 19504ac07
// (2026-01-11; 0.14.0rc0 was out that day, and 0.14.0 holds PR #30475 of
// 2025-12-16, after which no change to them came before that commit) and at
// f97ca6717 (2026-02-08, before 0.16.0's branch): vllm/lora/layers/
// base_linear.py:66-85, column_parallel_linear.py:206-225,
// vocal_parallel_embedding.py:49-68 (org_vocab_size: no extra vocabulary
// since PR #28545, 2025-11-21), logits_processor.py:96-122,
// punica_wrapper/punica_base.py:138-160, punica_gpu.py:223-228 (the shrink
// buffer at the slots' rank), ops/triton_ops/lora_kernel_metadata.py:35-58,
// model_manager.py:97 (the tokens rounded up to 8) and v1/
// cudagraph_dispatcher.py:98-104 (with and without adapters, PR #25914);
// PR #32005 (2026-02-02) kept the two cases under its default
// specialize_active_lora False. What differs before 0.17.0 is
// loraVocabLimit's, Qwen3's (loraQwen3EmbedSince), Phi-4-multimodal's
// (loraPhi4MMSince) and, on 0.14.x, Mistral's (loraMistralEmbedUntil).
var loraSince = v0_14_0

// loraVocabSince is the first release of maxLoRAVocab: PR #34773 (merged
// 2026-02-25, the day 0.16.0 was released) raised LogitsProcessorWithLoRA's
// limit from 257024, and 0.17.0 is the first release surely after it.
var loraVocabSince = v0_17_0

// maxLoRAVocabBefore is the limit before loraVocabSince: "if 32000 <
// vocab_size > 257024: raise" (vllm/lora/layers/logits_processor.py:92-95
// at 19504ac07 and f97ca6717), which, chained, refuses a vocabulary above
// 257024 only.
const maxLoRAVocabBefore = 257024

// loraQwen3EmbedSince is the first release whose Qwen3ForCausalLM lists
// embed_tokens and lm_head in its embedding_modules (PR #29816, merged
// 2026-02-06, before PR #34120 of 2026-02-09 that 0.16.0 holds). Before it
// Qwen3 had no such list and the dummy adapter's lm_head took the
// embedding's shapes (model_manager.py:426-445 at 19504ac07); whether
// 0.15's branch holds the PR was not read, so Qwen3 is refused before it.
var loraQwen3EmbedSince = v0_16_0

// loraPhi4MMSince is the first release whose Phi-4-multimodal LoRA
// membudget sizes: the tower and connector LoRA of PR #26674 (2025-12-26)
// reworked how the model manager wraps a multimodal model, and where 0.14's
// branch was cut beside it, and what the releases up to 0.16 wrap for
// Phi-4-multimodal, was not read.
var loraPhi4MMSince = v0_17_0

// loraMistralEmbedUntil is the first release whose MistralForCausalLM is
// mistral.py's, with no embedding_modules: PR #32780 (merged 2026-01-22)
// moved it out of llama.py, where the registry had mapped it to
// LlamaForCausalLM and its embed_tokens and lm_head (registry.py:154 and
// llama.py:535-538 at 19504ac07). 0.15.0 holds PR #32757
// (towersSkippedSince), merged after #32780 on main the same day.
var loraMistralEmbedUntil = v0_15_0

// loraEmbeds says whether release v wraps the embedding and the LM head of
// arch with LoRA (loraArchs, but for Mistral before loraMistralEmbedUntil).
func loraEmbeds(arch string, v Version) bool {
	if arch == "MistralForCausalLM" {
		return v.Less(loraMistralEmbedUntil)
	}
	return loraArchs[arch]
}

// loraVocabLimit is the largest vocabulary LogitsProcessorWithLoRA takes in
// release v.
func loraVocabLimit(v Version) uint64 {
	if v.Less(loraVocabSince) {
		return maxLoRAVocabBefore
	}
	return maxLoRAVocab
}

// loraReleaseRefusal is why release p does not size LoRA for a, "" when it
// does.
func loraReleaseRefusal(a *model.Arch, p Profile) string {
	switch arch := firstArch(a); {
	case p.Release.Less(loraSince):
		return fmt.Sprintf("membudget sizes LoRA from vLLM %s, whose layer shapes it has read", loraSince)
	case arch == "Qwen3ForCausalLM" && p.Release.Less(loraQwen3EmbedSince):
		return fmt.Sprintf("membudget sizes Qwen3's LoRA from vLLM %s, the first release surely holding its output-embedding LoRA (PR #29816, 2026-02-06)", loraQwen3EmbedSince)
	case arch == "Phi4MMForCausalLM" && p.Release.Less(loraPhi4MMSince):
		return fmt.Sprintf("membudget sizes Phi-4-multimodal's LoRA from vLLM %s: the multimodal wrapping before it (PR #26674, 2025-12-26) was not read", loraPhi4MMSince)
	}
	return ""
}

// loraV2Since is the first release whose V2 model runner runs the profile
// with dummy adapters and captures its graphs with and without them (PR
// #35536, merged 2026-06-16, vllm/v1/worker/gpu/lora_utils.py): 0.25.0 is
// the first surely after it (PR #44443 of 2026-07-02 dates it).
var loraV2Since = v0_25_0

// loraRanks are the ranks --max-lora-rank takes (vllm/config/lora.py:29,
// MaxLoRARanks, unchanged since PR #26413 of 2025-10-09): argparse
// refuses any other.
var loraRanks = []uint64{1, 8, 16, 32, 64, 128, 256, 320, 512}

// maxLoRAVocab is the largest vocabulary LogitsProcessorWithLoRA takes from
// loraVocabSince ("When using LoRA, vocab size must be <= 258048",
// vllm/lora/layers/logits_processor.py:91-92, PR #34773).
const maxLoRAVocab = 258048

// maxLoRASlots bounds --max-loras and --max-cpu-loras far above any serve,
// so that the slot products stay far from 2^64.
const maxLoRASlots = 1 << 16

// loraArchs are the architectures whose LoRA layers membudget sizes: dense
// decoders of a merged qkv_proj (q, k and v slices), o_proj, a merged
// gate_up_proj (gate and up slices) and down_proj, every one of them a
// LinearBase that vLLM wraps (vllm/lora/utils.py:219-240). embed says the
// class lists embed_tokens and lm_head in its embedding_modules, so that
// their LoRA wrappers are built too (llama.py:462-465, qwen3.py:279-282,
// granite.py:343); the others keep the empty default of SupportsLoRA
// (interfaces.py:646), and MistralForCausalLM empties Llama's ("We don't
// support LoRA on the embedding layers", mistral.py:230-232) from
// loraMistralEmbedUntil on (loraEmbeds).
var loraArchs = map[string]bool{
	"LlamaForCausalLM":   true,
	"MistralForCausalLM": false,
	"Qwen3ForCausalLM":   true,
	"GraniteForCausalLM": true,
	"Qwen2ForCausalLM":   false,
	"GemmaForCausalLM":   false,
	"Gemma2ForCausalLM":  false,
	"Gemma3ForCausalLM":  false,
	// Phi-4-multimodal lists no embedding_modules, and its LM head lies
	// outside the language model's prefix "model." (get_mm_mapping,
	// phi4mm.py:1252-1260), which alone gets a punica wrapper without
	// tower LoRA, so vLLM leaves the head, the towers and the projections
	// unwrapped (vllm/lora/model_manager.py:179-200, 726-740).
	"Phi4MMForCausalLM": false,
}

// loraOneSlice are the architectures whose packed_modules_mapping packs
// qkv_proj and gate_up_proj as one module each over a checkpoint that
// fuses them (phi4mm.py:995-1002): vLLM wraps each as a single-slice LoRA
// layer, QKVParallelLinearWithLoRA and ColumnParallelLinearWithLoRA
// (vllm/lora/layers/column_parallel_linear.py:85-183, 371-435), one A and
// one B over the rank's whole output.
var loraOneSlice = map[string]bool{"Phi4MMForCausalLM": true}

// resolveLoRA applies LoRA's defaults (vllm/config/lora.py:35-47 and
// _validate_lora_config, :117-124) and refuses what vLLM refuses and what
// membudget does not size, naming the flag.
func (r *Resolved) resolveLoRA(a *model.Arch, def func(string, string)) error {
	l := &r.LoRA
	if !l.Enable {
		if l.Modules != "" {
			// The API server loads them at startup (init_static_loras), and a
			// worker without LoRA refuses them (vllm/v1/worker/
			// lora_model_runner_mixin.py:84-87, 290-292).
			return settingErr("lora-modules", l.Modules, "vLLM stops at startup: LoRA is not enabled. Use --enable-lora to enable LoRA.")
		}
		return nil
	}
	p := r.Profile
	if why := loraReleaseRefusal(a, p); why != "" {
		return settingErr("enable-lora", "", "%s: not modelled for %s (%s: %s); membudget refuses it rather than size a serve vLLM would contradict",
			whatLora, p.Describes, a.Source, why)
	}
	arch := firstArch(a)
	embed := loraEmbeds(arch, p.Release)
	if !loraArch(a) {
		return settingErr("enable-lora", "", "%s: not modelled for %s (%s); membudget sizes them for the dense decoders %s; it refuses this serve rather than size one vLLM would contradict",
			whatLora, a.Source, archName(arch), strings.Join(loraArchNames(), ", "))
	}
	if r.onV2Runner(a) && p.Release.Less(loraV2Since) {
		return settingErr("enable-lora", "", "%s: not modelled for %s on the V2 model runner, which it runs %s on: membudget sizes the V2 runner's LoRA warmup and graph cases from vLLM %s (PR #35536, 2026-06-16); it refuses this serve rather than size one vLLM would contradict",
			whatLora, p.Describes, a.Source, loraV2Since)
	}
	if l.MaxLoras == 0 {
		l.MaxLoras = 1
		def("max-loras", "vLLM's default 1 (vllm/config/lora.py:37)")
	}
	if l.MaxLoras > maxLoRASlots {
		return settingErr("max-loras", l.MaxLoras, "beyond any serve (at most %d)", maxLoRASlots)
	}
	if l.MaxRank == 0 {
		l.MaxRank = 16
		def("max-lora-rank", "vLLM's default 16 (vllm/config/lora.py:35)")
	}
	if !slices.Contains(loraRanks, l.MaxRank) {
		return settingErr("max-lora-rank", l.MaxRank, "vLLM's command line takes only %s (vllm/config/lora.py:29)", joinUints(loraRanks))
	}
	switch {
	case l.MaxCPULoras == 0:
		l.MaxCPULoras = l.MaxLoras
		def("max-cpu-loras", "--max-loras, vLLM's default (vllm/config/lora.py:118-119)")
	case l.MaxCPULoras < l.MaxLoras:
		return settingErr("max-cpu-loras", l.MaxCPULoras, "vLLM refuses it: max_cpu_loras (%d) must be >= max_loras (%d) (vllm/config/lora.py:120-124)", l.MaxCPULoras, l.MaxLoras)
	case l.MaxCPULoras > maxLoRASlots:
		return settingErr("max-cpu-loras", l.MaxCPULoras, "beyond any serve (at most %d)", maxLoRASlots)
	}
	switch l.Dtype {
	case "", "auto":
		l.Dtype = "auto"
	case "float16", "bfloat16":
	default:
		return settingErr("lora-dtype", l.Dtype, "vLLM takes auto, float16 or bfloat16 (vllm/config/lora.py:26, LoRADType)")
	}
	tp := r.TensorParallelSize
	if l.FullySharded && l.MaxRank%tp != 0 {
		// divide() asserts (vllm/distributed/utils.py) when the column
		// layers split the rank (column_parallel_linear.py:219-223).
		return settingErr("fully-sharded-loras", "", "vLLM fails building its LoRA layers: --max-lora-rank %d is not divisible by --tensor-parallel-size %d (vllm/lora/layers/base_linear.py:120-124)", l.MaxRank, tp)
	}
	if limit := loraVocabLimit(p.Release); embed && a.Vocab > limit {
		if limit == maxLoRAVocab {
			return settingErr("enable-lora", "", "vLLM refuses it for %s: When using LoRA, vocab size must be <= %d, and it is %d (vllm/lora/layers/logits_processor.py:91-92)", a.Source, maxLoRAVocab, a.Vocab)
		}
		return settingErr("enable-lora", "", "%s refuses it for %s: When using LoRA, vocab size must be 32000 >= vocab_size <= %d, and it is %d (vllm/lora/layers/logits_processor.py:92-95 before PR #34773)", p.Describes, a.Source, limit, a.Vocab)
	}
	if ad := l.Adapters; ad.MaxRank > l.MaxRank {
		// PEFTHelper.validate_legal (vllm/lora/peft_helper.py:124-128);
		// the API server's init_static_loras raises on it
		// (vllm/entrypoints/openai/models/serving.py:124-139).
		return settingErr("lora-modules", ad.MaxRankOf, "vLLM stops at startup: LoRA rank %d is greater than max_lora_rank %d (\"r\" in its adapter_config.json): pass --max-lora-rank %d or more",
			ad.MaxRank, l.MaxRank, nextRank(ad.MaxRank))
	}
	if ad := l.Adapters; ad.Bias != "" {
		return settingErr("lora-modules", ad.BiasOf, "vLLM stops at startup: Adapter bias is not supported (\"bias\": %q in its adapter_config.json; vllm/lora/peft_helper.py:129-130)", ad.Bias)
	}
	r.LoRAHostBytes = loraHostBytes(a, r)
	return nil
}

// loraArch says membudget sizes LoRA for a: a dense decoder of loraArchs.
func loraArch(a *model.Arch) bool {
	arch := firstArch(a)
	_, ok := loraArchs[arch]
	fusedAsVLLMPacks := !a.FusedQKV && !a.FusedGateUp || loraOneSlice[arch] && a.FusedQKV && a.FusedGateUp
	return ok && a.Experts == 0 && !a.MLA && a.Mamba == nil && a.DeltaNet == nil && !a.Generic && fusedAsVLLMPacks && !a.AttnOutputGate
}

// dropUnsizedLoRA keeps a log's LoRA where membudget sizes it for a under
// p; elsewhere it leaves LoRA out of the serve with a warning, as explain
// did before LoRA was sized: the log is explained, short of the slots.
func (ls *loggedServe) dropUnsizedLoRA(a *model.Arch, p Profile) {
	if !ls.Serve.LoRA.Enable || a != nil && loraArch(a) && loraReleaseRefusal(a, p) == "" && !(p.V2Runner(a) && p.Release.Less(loraV2Since)) {
		return
	}
	ls.Serve.LoRA = LoRA{}
	for flag := range ls.From {
		if strings.Contains(flag, "lora") {
			delete(ls.From, flag)
		}
	}
	ls.Warnings = append(ls.Warnings, fmt.Sprintf("the log's serve uses LoRA adapters, which membudget sizes for the dense decoders %s from vLLM %s only (Qwen3 from %s, Phi-4-multimodal from %s): its predictions leave their slots out", strings.Join(loraArchNames(), ", "), loraSince, loraQwen3EmbedSince, loraPhi4MMSince))
}

// archName is an architecture for a message.
func archName(arch string) string {
	if arch == "" {
		return "no architectures in config.json"
	}
	return arch
}

// loraArchNames are loraArchs' names, sorted.
func loraArchNames() []string {
	var names []string
	for n := range loraArchs {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// nextRank is the smallest rank --max-lora-rank takes at or above r.
func nextRank(r uint64) uint64 {
	for _, v := range loraRanks {
		if v >= r {
			return v
		}
	}
	return r
}

// loraDtypeBytes is the bytes of a LoRA weight: the model's under auto
// (LoRAConfig.verify_with_model_config, vllm/config/lora.py:135-139).
func (r *Resolved) loraDtypeBytes() uint64 {
	if r.LoRA.Dtype == "float16" || r.LoRA.Dtype == "bfloat16" {
		return 2
	}
	return r.DtypeBytes
}

// loraTensors yields the slot tensors of one stage's GPU, as sizes in
// bytes and how many tensors of that size, as vLLM's LoRA layers allocate
// them: one torch.zeros each, max_loras x rows x columns (rank r, TP t,
// hidden H, q width Q = heads x head_dim, the KV heads of a rank x
// head_dim K, intermediate I), per decoder layer:
//   - qkv_proj, MergedQKVParallelLinearWithLoRA (column_parallel_linear.py:
//     437-481, 207-246): A 3 slices of rA x H, B the q slice Q/t x r and
//     the k and v slices K x r;
//   - o_proj, RowParallelLinearWithLoRA (row_parallel_linear.py:22-30,
//     base_linear.py:110-145): A r x Q/t, B H' x r;
//   - gate_up_proj, MergedColumnParallelLinearWithLoRA (column_parallel_
//     linear.py:184-246): A 2 slices of rA x H, B 2 slices of I/t x r;
//   - down_proj, row-parallel: A r x I/t, B H' x r;
//
// or, for loraOneSlice's architectures, qkv_proj's one A of rA x H and one
// B of (Q/t + 2K) x r, and gate_up_proj's one A of rA x H and one B of
// 2I/t x r (ColumnParallelLinearWithLoRA's output_size_per_partition);
// where rA is r, or r/t with --fully-sharded-loras, and H' is H, or H/t
// with it (base_linear.py:110-127). Where the architecture lists them in
// embedding_modules, the first stage adds VocabParallelEmbeddingWithLoRA's
// A vocab x r and B H x r (unsharded: vocal_parallel_embedding.py:52-70)
// and the last LogitsProcessorWithLoRA's A r x H and B vocab x r
// (config.vocab_size, unsharded: logits_processor.py:93-112), with its
// int64 map of the padded vocabulary under tensor parallelism.
func loraTensors(a *model.Arch, r *Resolved, st model.Sharding, yield func(bytes, count uint64)) {
	t, rank := r.TensorParallelSize, r.LoRA.MaxRank
	per := budget.SatMul(r.LoRA.MaxLoras, r.loraDtypeBytes())
	tensor := func(rows, cols, count uint64) {
		if count > 0 {
			yield(budget.SatMul(per, budget.SatMul(rows, cols)), count)
		}
	}
	rankA, outRow := rank, a.Hidden
	if r.LoRA.FullySharded {
		rankA, outRow = rank/t, budget.CeilDiv(a.Hidden, t)
	}
	h := a.Hidden
	q := budget.CeilDiv(a.Heads*a.HeadDim, t)
	// QKVParallelLinear keeps max(1, kv_heads/t) heads a rank
	// (vllm/model_executor/layers/linear.py:1017-1024).
	kv := max(a.KVHeads/t, 1) * a.HeadDim
	inter := budget.CeilDiv(a.Intermediate, t)
	layers := uint64(st.EndLayer - st.FirstLayer)
	one := loraOneSlice[firstArch(a)]
	if one {
		tensor(rankA, h, 2*layers)   // qkv's and gate_up's one A each
		tensor(q+2*kv, rank, layers) // qkv's one B
	} else {
		tensor(rankA, h, 5*layers) // qkv's 3 A slices, gate_up's 2
		tensor(q, rank, layers)    // qkv's q B slice
		tensor(kv, rank, 2*layers) // qkv's k and v B slices
	}
	tensor(rank, q, layers) // o's A
	tensor(outRow, rank, 2*layers)
	if one {
		tensor(2*inter, rank, layers) // gate_up's one B
	} else {
		tensor(inter, rank, 2*layers) // gate_up's B slices
	}
	tensor(rank, inter, layers) // down's A
	if !loraEmbeds(firstArch(a), r.Profile.Release) {
		return
	}
	if st.First {
		tensor(a.Vocab, rank, 1)
		tensor(h, rank, 1)
	}
	if st.Last {
		tensor(rank, h, 1)
		tensor(a.Vocab, rank, 1)
		if t > 1 {
			// The gathered logits' reindexing, one int64 per padded token
			// (get_sharded_to_full_mapping, vocab_parallel_embedding.py:
			// 380-392, None at TP 1; logits_processor.py:114-117).
			yield(budget.SatMul(budget.RoundUp(a.Vocab, vocabPadding), 8), 1)
		}
	}
}

// firstArch is config.json's first architecture, "" when none.
func firstArch(a *model.Arch) string {
	if len(a.Architectures) == 0 {
		return ""
	}
	return a.Architectures[0]
}

// loraSlotBytes is the LoRA slots of one stage's GPU: max_loras slots of
// every wrapped module of its layers, the embedding and the LM head where
// the stage holds them.
func loraSlotBytes(a *model.Arch, r *Resolved, st model.Sharding) uint64 {
	var n uint64
	loraTensors(a, r, st, func(bytes, count uint64) { n = budget.SatAdd(n, budget.SatMul(bytes, count)) })
	return n
}

// loraMetaTensors yields the punica wrapper's index tensors on one GPU
// (vllm/lora/punica_wrapper/punica_base.py:133-160: three int64 rows of
// the batched tokens, rounded up to 8 by model_manager.py:112, one of two
// such rows, and three int64 rows of max_num_seqs; punica_gpu.py:58-73:
// two LoRAKernelMeta, each two int32 rows of the tokens and int32 rows of
// max_loras + 1, + 1 and + 2, lora_kernel_metadata.py:56-78).
func loraMetaTensors(r *Resolved, yield func(bytes, count uint64)) {
	tokens := budget.RoundUp(r.MaxNumBatchedTokens, 8)
	l := r.LoRA.MaxLoras
	yield(budget.SatMul(tokens, 8), 3)
	yield(budget.SatMul(tokens, 2*8), 1)
	yield(budget.SatMul(r.MaxNumSeqs, 8), 3)
	yield(budget.SatMul(tokens, 4), 2*2)
	yield((l+1)*4, 2*2)
	yield((l+2)*4, 2)
}

// loraMetadataBytes is the punica wrapper's index tensors on one GPU.
func loraMetadataBytes(r *Resolved) uint64 {
	var n uint64
	loraMetaTensors(r, func(bytes, count uint64) { n = budget.SatAdd(n, budget.SatMul(bytes, count)) })
	return n
}

// addLoRAPools adds the stage's LoRA tensors to its caching-allocator
// pools, whose slack they share.
func addLoRAPools(p torchalloc.Pools, a *model.Arch, r *Resolved, st model.Sharding) torchalloc.Pools {
	if !r.LoRA.Enable {
		return p
	}
	add := func(bytes, count uint64) { p = p.Add(bytes, count) }
	loraTensors(a, r, st, add)
	loraMetaTensors(r, add)
	return p
}

// loraShrinkBytes is what the profile run's dummy adapters add to the
// forward pass's peak: the shrink buffer of down_proj, float32 tokens x
// rank (punica_gpu.py:243-250), live beside the down projection's output
// at the MLP's peak.
func loraShrinkBytes(r *Resolved) uint64 {
	return budget.SatMul(budget.SatMul(r.MaxNumBatchedTokens, r.LoRA.MaxRank), 4)
}

// loraGraphCases is the LoRA cases each CUDA-graph size is captured for:
// without adapters and with max_loras + 1 (cudagraph_specialize_lora's
// default, vllm/config/compilation.py:660; vllm/v1/cudagraph_dispatcher.py:
// 111-130; the V2 runner's vllm/v1/worker/gpu/lora_utils.py:20-36).
func loraGraphCases(r *Resolved) uint64 {
	if r.LoRA.Enable {
		return 2
	}
	return 1
}

// appendLoRAItems appends the LoRA terms of one stage: the slots and the
// punica metadata, which vLLM allocates while it loads the model (its
// "Model loading took" figure), and the shrink buffer of the profile run.
func appendLoRAItems(items []budget.Item, a *model.Arch, r *Resolved, st model.Sharding) []budget.Item {
	if !r.LoRA.Enable {
		return items
	}
	return append(items,
		budget.Item{Name: "lora_slots", Term: budget.TermWeights, Bytes: loraSlotBytes(a, r, st)},
		budget.Item{Name: "lora_metadata", Term: budget.TermWeights, Bytes: loraMetadataBytes(r)},
		budget.Item{Name: "lora_shrink_buffer", Term: budget.TermActivation, Bytes: loraShrinkBytes(r)},
	)
}

// loraHostBytes is the adapters cached in host memory on each GPU's worker
// at most: max_cpu_loras adapters (the LRU of model_manager.py:105-108),
// each loaded whole, unsharded, in the LoRA dtype
// (LoRAModel.from_local_checkpoint), at --max-lora-rank over every module
// vLLM wraps: an upper bound, since an adapter may have a lower rank or
// fewer modules.
func loraHostBytes(a *model.Arch, r *Resolved) uint64 {
	if !r.LoRA.Enable {
		return 0
	}
	one := *r
	one.TensorParallelSize, one.LoRA.FullySharded = 1, false
	whole := model.Sharding{FirstLayer: 0, EndLayer: len(a.Layers), First: true, Last: true}
	one.LoRA.MaxLoras = r.LoRA.MaxCPULoras
	return loraSlotBytes(a, &one, whole)
}

// maxAdapterConfig bounds the adapter_config.json read.
const maxAdapterConfig = 1 << 20

// ReadAdapter reads --lora-modules' value as vLLM's LoRAParserAction does
// (vllm/entrypoints/openai/cli_args.py: NAME=PATH, or a JSON object with
// "name" and "path"), and, where PATH is a local directory, its
// adapter_config.json's "r" and "bias" (vllm/lora/peft_helper.py). A path
// that is not a directory (a Hub repository) is kept unread.
func ReadAdapter(v string) (Adapter, error) {
	var ad Adapter
	v = strings.TrimSpace(v)
	if strings.HasPrefix(v, "{") {
		var obj struct {
			Name *string `json:"name"`
			Path *string `json:"path"`
		}
		if err := json.Unmarshal([]byte(v), &obj); err != nil {
			return ad, fmt.Errorf("invalid JSON format for --lora-modules: %v", err)
		}
		if obj.Name == nil || obj.Path == nil {
			return ad, errors.New(`a JSON adapter needs "name" and "path"`)
		}
		ad.Name, ad.Path = *obj.Name, *obj.Path
	} else {
		name, path, ok := strings.Cut(v, "=")
		if !ok || name == "" || path == "" {
			return ad, fmt.Errorf("invalid format for --lora-modules: %q; want NAME=PATH or a JSON object", v)
		}
		ad.Name, ad.Path = name, path
	}
	fi, err := os.Stat(ad.Path)
	if err != nil || !fi.IsDir() {
		return ad, nil
	}
	file := filepath.Join(ad.Path, "adapter_config.json")
	f, err := os.Open(file)
	if err != nil {
		return ad, fmt.Errorf("adapter %s: %v", ad.Name, err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxAdapterConfig+1))
	if err != nil {
		return ad, fmt.Errorf("%s: %v", file, err)
	}
	if len(data) > maxAdapterConfig {
		return ad, fmt.Errorf("%s: larger than %d bytes", file, maxAdapterConfig)
	}
	var cfg struct {
		R    json.RawMessage `json:"r"`
		Bias *string         `json:"bias"`
	}
	if err := json.Unmarshal(data, &cfg); err != nil {
		return ad, fmt.Errorf("%s: %v", file, err)
	}
	if cfg.R == nil {
		return ad, fmt.Errorf("%s: no key \"r\" (the adapter's rank)", file)
	}
	rank, err := strconv.ParseUint(strings.TrimSpace(string(cfg.R)), 10, 32)
	if err != nil || rank == 0 {
		return ad, fmt.Errorf("%s: key \"r\" is %s; want the adapter's rank, a positive integer", file, cfg.R)
	}
	ad.Rank, ad.Read = rank, true
	if cfg.Bias != nil {
		ad.Bias = *cfg.Bias
	}
	return ad, nil
}

// registerLoRA registers the LoRA flags that size a serve into l.
// loraFlags are the flags registerLoRA registers: a request that names one
// registers them all, so that their defaults hold together.
// (Their --no- forms are registerNegations', and a --no- form given counts
// as its switch given.)
var loraFlags = []string{"enable-lora", "max-loras", "max-lora-rank", "max-cpu-loras", "fully-sharded-loras", "lora-dtype", "lora-modules"}

func registerLoRA(fs *flag.FlagSet, l *LoRA) {
	fs.BoolVar(&l.Enable, "enable-lora", false, "vLLM's --enable-lora: adapter slots on every GPU (sized for dense Llama, Mistral, Qwen2/3, Gemma 1-3 and Granite decoders, vLLM 0.14.0 on; Qwen3 from 0.16.0)")
	fs.Var(&sizeFlag{&l.MaxLoras, "max-loras"}, "max-loras", "vLLM's --max-loras: adapters in one batch, each a GPU slot (default 1)")
	fs.Var(&sizeFlag{&l.MaxRank, "max-lora-rank"}, "max-lora-rank", "vLLM's --max-lora-rank: 1, 8, 16, 32, 64, 128, 256, 320 or 512 (default 16)")
	fs.Var(cpuLorasFlag{&l.MaxCPULoras}, "max-cpu-loras", "vLLM's --max-cpu-loras: adapters cached in host memory (default, and 0 or less: --max-loras)")
	fs.BoolVar(&l.FullySharded, "fully-sharded-loras", false, "vLLM's --fully-sharded-loras: the slots' rank and output sharded by TP too")
	fs.StringVar(&l.Dtype, "lora-dtype", "auto", "vLLM's --lora-dtype: auto, float16, bfloat16")
	fs.Var(&adaptersFlag{l}, "lora-modules", "vLLM's --lora-modules NAME=PATH ...: a local adapter's rank is checked against --max-lora-rank")
}

// cpuLorasFlag is --max-cpu-loras: argparse's int, where 0 or less is
// vLLM's default, --max-loras (vllm/engine/arg_utils.py create_lora_config:
// max_cpu_loras if max_cpu_loras and max_cpu_loras > 0 else None).
type cpuLorasFlag struct{ v *uint64 }

func (f cpuLorasFlag) String() string {
	if f.v == nil || *f.v == 0 {
		return ""
	}
	return strconv.FormatUint(*f.v, 10)
}

func (f cpuLorasFlag) Set(s string) error {
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil {
		return fmt.Errorf("%q is not an integer", s)
	}
	*f.v = uint64(max(n, 0))
	return nil
}

// adaptersFlag is --lora-modules: adapters separated by spaces (argparse's
// nargs="+", which Respell joins into one argument), each NAME=PATH or a
// JSON object. Given again, it replaces the adapters, as argparse does.
type adaptersFlag struct{ l *LoRA }

func (f *adaptersFlag) String() string {
	if f.l == nil {
		return ""
	}
	return f.l.Modules
}

func (f *adaptersFlag) Set(s string) error {
	items, err := splitModules(s)
	if err != nil {
		return err
	}
	var sum Adapters
	for _, item := range items {
		ad, err := ReadAdapter(item)
		if err != nil {
			return err
		}
		if !ad.Read {
			sum.NotRead++
			continue
		}
		sum.Read++
		if ad.Rank > sum.MaxRank {
			sum.MaxRank, sum.MaxRankOf = ad.Rank, ad.Name+"="+ad.Path
		}
		if ad.Bias != "" && ad.Bias != "none" && sum.Bias == "" {
			sum.Bias, sum.BiasOf = ad.Bias, ad.Name+"="+ad.Path
		}
	}
	f.l.Modules, f.l.Adapters = strings.TrimSpace(s), sum
	return nil
}

// AdapterPaths returns the paths of --lora-modules' value v that parsing
// the flag would read (each adapter's adapter_config.json), up to the first
// adapter it cannot parse, where the flag stops with an error: for a
// caller that allows local paths only under some directories to check
// them before the flag is parsed.
func AdapterPaths(v string) []string {
	items, err := splitModules(v)
	if err != nil {
		return nil
	}
	var paths []string
	for _, item := range items {
		item = strings.TrimSpace(item)
		if strings.HasPrefix(item, "{") {
			var obj struct {
				Path *string `json:"path"`
			}
			if json.Unmarshal([]byte(item), &obj) != nil || obj.Path == nil {
				return paths
			}
			paths = append(paths, *obj.Path)
			continue
		}
		name, path, ok := strings.Cut(item, "=")
		if !ok || name == "" || path == "" {
			return paths
		}
		paths = append(paths, path)
	}
	return paths
}

// splitModules splits --lora-modules' value into its adapters: NAME=PATH
// words and JSON objects, separated by spaces.
func splitModules(s string) ([]string, error) {
	var items []string
	for rest := strings.TrimSpace(s); rest != ""; rest = strings.TrimSpace(rest) {
		item := rest
		if strings.HasPrefix(rest, "{") {
			dec := json.NewDecoder(strings.NewReader(rest))
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil {
				return nil, fmt.Errorf("invalid JSON format for --lora-modules: %v", err)
			}
			item, rest = rest[:dec.InputOffset()], rest[dec.InputOffset():]
			if rest != "" && !strings.ContainsAny(rest[:1], " \t\n") {
				// One word to argparse: LoRAParserAction's json.loads of
				// it refuses what follows the object, "Extra data"
				// (vllm/entrypoints/openai/cli_args.py:52-57 at main
				// d18bb7b).
				return nil, fmt.Errorf("invalid JSON format for --lora-modules: %s is followed by %.20q, with no space between", item, rest)
			}
		} else if i := strings.IndexAny(rest, " \t\n"); i >= 0 {
			item, rest = rest[:i], rest[i:]
		} else {
			rest = ""
		}
		items = append(items, item)
	}
	if len(items) == 0 {
		return nil, errors.New("want NAME=PATH or a JSON object")
	}
	return items, nil
}

// writeLoRAFlags writes the LoRA flags of a resolved serve to a launch
// line, every setting that sizes it explicit.
func writeLoRAFlags(b *strings.Builder, l LoRA) {
	if !l.Enable {
		return
	}
	b.WriteString(" --enable-lora --max-loras ")
	b.WriteString(strconv.FormatUint(l.MaxLoras, 10))
	b.WriteString(" --max-lora-rank ")
	b.WriteString(strconv.FormatUint(l.MaxRank, 10))
	if l.MaxCPULoras != l.MaxLoras {
		b.WriteString(" --max-cpu-loras ")
		b.WriteString(strconv.FormatUint(l.MaxCPULoras, 10))
	}
	if l.FullySharded {
		b.WriteString(" --fully-sharded-loras")
	}
	if l.Dtype != "auto" && l.Dtype != "" {
		b.WriteString(" --lora-dtype ")
		b.WriteString(l.Dtype)
	}
	if items, err := splitModules(l.Modules); err == nil {
		b.WriteString(" --lora-modules")
		for _, it := range items {
			b.WriteByte(' ')
			b.WriteString(shell.Quote(it))
		}
	}
}

// loraJSON is the serve's LoRA settings and what they hold: the report's
// "serve"."lora".
type loraJSON struct {
	MaxLoras     uint64 `json:"max_loras"`
	MaxLoraRank  uint64 `json:"max_lora_rank"`
	MaxCPULoras  uint64 `json:"max_cpu_loras"`
	FullySharded bool   `json:"fully_sharded_loras"`
	LoraDtype    string `json:"lora_dtype"`
	Modules      string `json:"lora_modules,omitempty"`
	// SlotBytes is the slots and the punica metadata on a GPU of the
	// first stage; HostBytes the adapter cache of a worker at most.
	SlotBytes uint64 `json:"slot_bytes"`
	HostBytes uint64 `json:"host_bytes"`
}

// loraJSON is the sizing's LoRA for the report, nil without LoRA.
func (sz *Sizing) loraJSON() *loraJSON {
	r := sz.Serve
	if !r.LoRA.Enable {
		return nil
	}
	l := r.LoRA
	return &loraJSON{MaxLoras: l.MaxLoras, MaxLoraRank: l.MaxRank, MaxCPULoras: l.MaxCPULoras, FullySharded: l.FullySharded,
		LoraDtype: l.Dtype, Modules: l.Modules, SlotBytes: sz.loraBytes(0), HostBytes: r.LoRAHostBytes}
}

// loraBytes is the LoRA slots and metadata on a GPU of stage i.
func (sz *Sizing) loraBytes(i int) uint64 {
	r := sz.Serve
	if !r.LoRA.Enable || i >= len(r.Stages) {
		return 0
	}
	return budget.SatAdd(loraSlotBytes(sz.Model.Arch, r, stageOf(r, i)), loraMetadataBytes(r))
}

// splitLoRA names the LoRA slots in a footprint's lines: the weights line
// without them, then theirs (the sum is the weights term).
func (sz *Sizing) splitLoRA(lines []engine.FootprintLine, fp budget.Footprint) []engine.FootprintLine {
	return splitOut(lines, budget.TermWeights, "LoRA slots", sz.loraBytes(fp.Stage))
}

// loraSettings are the lines a report prints of the serve's LoRA beside
// its settings: the host cache, and the adapters whose rank was not read.
func (sz *Sizing) loraSettings() []string {
	l := sz.Serve.LoRA
	if !l.Enable {
		return nil
	}
	where := "host memory, not the GPU's"
	if sz.Class.Memory.Unified {
		where = "on this unified device, the GPU's memory: counted"
	}
	out := []string{fmt.Sprintf("LoRA: %d slot(s) of rank %d on every GPU; up to %d adapter(s) cached per worker, at most %s (%s)",
		l.MaxLoras, l.MaxRank, l.MaxCPULoras, engine.GiB(sz.Serve.LoRAHostBytes), where)}
	if n := l.Adapters.NotRead; n > 0 {
		out = append(out, fmt.Sprintf("--lora-modules: %d adapter(s) not in a local directory: their rank is not checked against --max-lora-rank %d (membudget does not download adapters)", n, l.MaxRank))
	}
	return out
}

// loraRefusal says a setting error refuses the serve's LoRA whatever its
// layout: a refusal of --fully-sharded-loras depends on the TP size.
func loraRefusal(se *engine.SettingError) bool {
	switch se.Flag {
	case "enable-lora", "max-loras", "max-lora-rank", "max-cpu-loras", "lora-dtype", "lora-modules":
		return true
	}
	return false
}
