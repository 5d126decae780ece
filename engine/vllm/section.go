package vllm

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"membudget/budget"
	"membudget/engine"
)

// section is a report's vLLM section of a sizing.
type section struct{ sz *Sizing }

// serveJSON is the resolved serve under vLLM's names: the report's "serve".
type serveJSON struct {
	VLLMVersion          string  `json:"vllm_version"`
	VLLM                 string  `json:"vllm"`
	GPUMemoryUtilization float64 `json:"gpu_memory_utilization"`
	KVCacheMemoryBytes   uint64  `json:"kv_cache_memory_bytes"`
	MaxModelLen          uint64  `json:"max_model_len"`
	MaxNumSeqs           uint64  `json:"max_num_seqs"`
	MaxNumBatchedTokens  uint64  `json:"max_num_batched_tokens"`
	BlockSize            uint64  `json:"block_size"`
	KVCacheDtype         string  `json:"kv_cache_dtype"`
	// KVCacheDtypeSkipLayers is --kv-cache-dtype-skip-layers as given,
	// its entries separated by spaces (kvskip.go).
	KVCacheDtypeSkipLayers string `json:"kv_cache_dtype_skip_layers,omitempty"`
	TensorParallelSize     uint64 `json:"tensor_parallel_size"`
	PipelineParallelSize   uint64 `json:"pipeline_parallel_size"`
	DataParallelSize       uint64 `json:"data_parallel_size"`
	EnableExpertParallel   bool   `json:"enable_expert_parallel"`
	Dtype                  string `json:"dtype"`
	Quantization           string `json:"quantization"`
	EnforceEager           bool   `json:"enforce_eager"`
	// CompileCache is "cold" under --compile-cache cold (coldcompile.go),
	// absent for the warm start membudget sizes by default.
	CompileCache    string    `json:"compile_cache,omitempty"`
	AsyncScheduling bool      `json:"async_scheduling"`
	Runner          string    `json:"runner,omitempty"`
	CPUOffloadGiB   float64   `json:"cpu_offload_gib"`
	SwapSpaceGiB    float64   `json:"swap_space_gib"`
	LoRA            *loraJSON `json:"lora,omitempty"`
	// Compilation is the serve's compilation and graphs, when given.
	Compilation *compilationJSON `json:"compilation,omitempty"`
	// NumGPUBlocksOverride is --num-gpu-blocks-override, 0 when not given.
	NumGPUBlocksOverride uint64 `json:"num_gpu_blocks_override,omitempty"`
	// KVOffload is --kv-offloading-size and what it pins (offload.go).
	KVOffload *offloadJSON `json:"kv_offload,omitempty"`
	// EPLB is --enable-eplb and what it holds (eplb.go).
	EPLB *eplbJSON `json:"eplb,omitempty"`
	// All2All is --all2all-backend and its buffers (all2all.go).
	All2All *a2aJSON `json:"all2all,omitempty"`
	// KVTransfer is --kv-transfer-config's connector and its host buffer
	// (kvhost.go).
	KVTransfer *kvTransferJSON `json:"kv_transfer,omitempty"`
	// Multimodal is the multimodal flags and the encoder cache they size.
	Multimodal *mmJSON `json:"multimodal,omitempty"`
	// Speculative is --speculative-config and what it adds (specdecode.go).
	Speculative *specJSON `json:"speculative,omitempty"`
	// Defaults is the serve's [Sources] as an object by flag.
	Defaults map[string]string `json:"defaults"`
	Ignored  []string          `json:"ignored,omitempty"`
	// RequiresPlugin names the package outside vLLM the serve needs to
	// start ("" for none).
	RequiresPlugin string `json:"requires_plugin,omitempty"`
	Command        string `json:"command"`
}

// capacityJSON is the KV cache as vLLM's startup reports it: the report's
// "kv_capacity".
type capacityJSON struct {
	AvailableBytes       uint64  `json:"available_bytes"`
	BlockBytes           uint64  `json:"block_bytes"`
	Blocks               uint64  `json:"blocks"`
	Tokens               uint64  `json:"tokens"`
	LoggedTokens         uint64  `json:"logged_tokens"`
	PagesPerSeq          uint64  `json:"pages_per_seq"`
	MaxConcurrency       float64 `json:"max_concurrency"`
	NeededBytes          uint64  `json:"needed_bytes"`
	Starts               bool    `json:"starts"`
	EstimatedMaxModelLen uint64  `json:"estimated_max_model_len"`
	// StateBlocks and SeqsOverStateBlocks: a hybrid model's Mamba cache
	// blocks, and whether vLLM refuses max_num_seqs above them.
	StateBlocks         uint64 `json:"state_blocks,omitempty"`
	SeqsOverStateBlocks bool   `json:"seqs_over_state_blocks,omitempty"`
	// Groups is vLLM's KV cache groups, as its spec classes name them.
	Groups string `json:"groups,omitempty"`
	// KVDtypeByLayer is, under --kv-cache-dtype-skip-layers, which layers
	// keep the model's dtype and which the KV cache dtype (kvskip.go).
	KVDtypeByLayer string `json:"kv_dtype_by_layer,omitempty"`
}

func (s section) Rules() (string, string) {
	r := s.sz.Serve
	note := r.Profile.Note
	if plugin := r.plugin(); plugin != "" {
		note = strings.TrimSpace(note + " " + plugin)
	}
	return r.Profile.Describes, note
}

func (s section) Serve() any {
	r := s.sz.Serve
	return serveJSON{
		VLLMVersion: r.Profile.Name, VLLM: r.Profile.Describes,
		GPUMemoryUtilization: r.GPUMemoryUtilization, KVCacheMemoryBytes: r.KVCacheMemoryBytes,
		MaxModelLen: r.MaxModelLen, MaxNumSeqs: r.MaxNumSeqs, MaxNumBatchedTokens: r.MaxNumBatchedTokens,
		BlockSize: r.BlockSize, KVCacheDtype: r.KVCacheDtype, KVCacheDtypeSkipLayers: strings.Join(strings.Fields(r.Serve.KVCacheDtypeSkipLayers), " "), TensorParallelSize: r.TensorParallelSize,
		PipelineParallelSize: r.PipelineParallelSize, DataParallelSize: r.DataParallelSize, EnableExpertParallel: r.EnableExpertParallel,
		Dtype: r.Dtype, Quantization: r.Quant.Method, EnforceEager: r.EnforceEager, CompileCache: r.compileCacheJSON(), AsyncScheduling: r.Async, Runner: s.sz.runnerJSON(),
		CPUOffloadGiB: r.CPUOffloadGiB, SwapSpaceGiB: r.SwapGiB, LoRA: s.sz.loraJSON(), Compilation: s.sz.compilationJSON(), NumGPUBlocksOverride: r.NumGPUBlocksOverride, KVOffload: s.sz.offloadJSON(), EPLB: s.sz.eplbJSON(), All2All: s.sz.a2aJSON(), KVTransfer: s.sz.kvTransferJSON(), Multimodal: s.sz.mmJSON(), Speculative: s.sz.specJSON(), Defaults: r.Sources.Map(), Ignored: s.sz.pasted.AllIgnored(), RequiresPlugin: r.pluginName(),
		Command: s.sz.Command(),
	}
}

func (s section) Settings() []string {
	out := append(s.sz.pasted.Settings(s.sz.Serve.Sources.Map()), s.sz.loraSettings()...)
	out = append(out, s.sz.offloadSettings()...)
	out = append(out, s.sz.eplbSettings()...)
	out = append(out, s.sz.a2aSettings()...)
	out = append(out, s.sz.kvTransferSettings()...)
	out = append(out, s.sz.mmSettings()...)
	return append(out, s.sz.specSettings()...)
}

func (s section) GPUs() uint64 { return s.sz.gpus() }

func (s section) Weights(i int) engine.Weights { return s.sz.weightsOf(i) }

// Warnings are the checkpoint's differences from config.json's weights;
// without a checkpoint there is nothing to compare (and nothing itemised).
func (s section) Warnings(i int) []string {
	if s.sz.Model.Checkpoint == nil {
		return nil
	}
	return s.sz.weightsOf(i).Warnings
}

func (s section) Fields(fp budget.Footprint) []engine.Field {
	if s.sz.encoderOnly() {
		return s.sz.poolingFields()
	}
	c := s.sz.capacity
	fields := append([]engine.Field{{Key: "kv_capacity", Value: capacityJSON{AvailableBytes: c.AvailableBytes, BlockBytes: c.BlockBytes, Blocks: c.Blocks, Tokens: c.Tokens,
		LoggedTokens: c.LoggedTokens, PagesPerSeq: c.PagesPerSeq, MaxConcurrency: c.Concurrency, NeededBytes: c.NeededBytes,
		Starts: c.Starts, EstimatedMaxModelLen: c.EstimatedMaxModelLen, StateBlocks: c.StateBlocks, SeqsOverStateBlocks: c.SeqsOverStateBlocks,
		Groups: s.sz.groups(), KVDtypeByLayer: s.sz.Serve.skipSummary(s.sz.Model.Arch)}}}, s.sz.preallocatedField(fp)...)
	fields = append(fields, s.sz.coldCompileField()...)
	fields = append(fields, s.sz.coldKeptField()...)
	fields = append(fields, s.sz.graphMarginField(fp)...)
	fields = append(fields, s.sz.unifiedGraphsField(fp)...)
	if s.sz.Model.Arch.EncoderDecoder() {
		fields = append(fields, s.sz.encDecFields()...)
	}
	return fields
}

// WriteBefore writes, under tensor or pipeline parallelism, what the
// interconnect decides: whether vLLM's custom all-reduce runs, what stands
// beside the budget before vLLM's snapshot and NCCL's growth in the
// profile run.
func (s section) WriteBefore(w io.Writer, _ budget.Footprint) {
	r := s.sz.Serve
	if r.TensorParallelSize <= 1 {
		if pp := r.ppSetupBytes(); pp > 0 {
			fmt.Fprintf(w, "\npipeline parallel %d over %s: its NCCL communicator holds %s before vLLM's snapshot, in driver fixed\n",
				r.PipelineParallelSize, r.Collectives.Interconnect, engine.GiB(pp))
		}
		return
	}
	col := r.Collectives
	ar := fmt.Sprintf("vLLM's custom all-reduce on (%s a rank)", engine.GiB(customAllReduceBytes(r.Profile)))
	if !col.CustomAllReduce {
		ar = "vLLM's custom all-reduce off: " + col.Why
	}
	fmt.Fprintf(w, "\ntensor parallel %d over %s: %s\n", r.TensorParallelSize, col.Interconnect, ar)
	pp := ""
	if b := r.ppSetupBytes(); b > 0 {
		pp = fmt.Sprintf(" (the pipeline group's communicator's %s included)", engine.GiB(b))
	}
	fmt.Fprintf(w, "  held before vLLM's snapshot, in driver fixed: %s%s; NCCL's growth in the profile run, in non-torch growth: %s\n",
		engine.GiB(r.setupBytes()), pp, engine.GiB(r.tpNonTorch()))
}

// WriteAfter writes the KV cache as vLLM's startup logs report it, and
// whether vLLM starts.
func (s section) WriteAfter(w io.Writer, fp budget.Footprint) {
	if s.sz.encoderOnly() {
		s.sz.writePooling(w)
		return
	}
	c, r, groups := s.sz.capacity, s.sz.Serve, s.sz.groups()
	fmt.Fprintf(w, "\n%s\n", s.sz.tokensLine())
	if groups != "" {
		fmt.Fprintf(w, "  groups: %s", groups)
		if r.StatePageBytes > 0 {
			fmt.Fprintf(w, "; state %d B a page", r.StatePageBytes)
			if c.StatePadding > 0 {
				fmt.Fprintf(w, ", padded by %d B to the attention page", c.StatePadding)
			}
			if r.MambaCacheMode != "" {
				fmt.Fprintf(w, ", %d page(s) a sequence (mamba_cache_mode %s)", r.StatePages, r.MambaCacheMode)
			}
		}
		fmt.Fprintln(w)
	}
	if skip := r.skipSummary(s.sz.Model.Arch); skip != "" {
		// --kv-cache-dtype-skip-layers: the per-layer dtype split.
		fmt.Fprintf(w, "  KV dtype by layer: %s\n", skip)
	}
	if s.sz.Model.Arch.EncoderDecoder() {
		s.sz.writeEncoderDecoder(w)
	}
	fmt.Fprintf(w, "  vLLM logs: GPU KV cache size: %d tokens; maximum concurrency for %d tokens per request: %.2fx\n",
		c.LoggedTokens, r.MaxModelLen, c.Concurrency)
	if c.SeqsOverStateBlocks {
		fmt.Fprintf(w, "  vLLM refuses to start: %s\n", StateBlocksMessage(r.MaxNumSeqs, c.StateBlocks))
	} else if c.StateBlocks > 0 {
		fmt.Fprintf(w, "  Mamba cache blocks: %d, enough for --max-num-seqs %d (every running sequence holds one)\n", c.StateBlocks, r.MaxNumSeqs)
	}
	switch {
	case c.Starts && !c.SeqsOverStateBlocks:
		fmt.Fprintf(w, "  vLLM starts: one request of %d tokens needs %s of KV cache\n", r.MaxModelLen, engine.GiB(c.NeededBytes))
		s.sz.writeGraphMargin(w, fp)
		s.sz.writeUnifiedGraphs(w, fp.Terms[budget.TermGraphPool])
		s.sz.writeColdCompile(w)
		s.sz.writePreallocated(w, fp)
		return
	case c.Starts:
		fmt.Fprintf(w, "  one request of %d tokens needs %s of KV cache: it fits\n", r.MaxModelLen, engine.GiB(c.NeededBytes))
		return
	}
	fmt.Fprintf(w, "  vLLM refuses to start: %s\n", c.Refusal(r.MaxModelLen, r.MaxNumSeqs))
}

func (s section) QueryLines() []string {
	if s.sz.encoderOnly() {
		return s.sz.poolingQueryLines()
	}
	return nil
}

// termLabels are the footprint's terms as a vLLM report names them.
var termLabels = [budget.NumTerms]string{"weights", "KV cache", "activation peak", "CUDA graph pool", "sampler", "non-torch growth"}

// splitOut names n bytes of term t's line as a line of their own, label,
// placed right after it: the term's line keeps the rest, so that the two
// sum to the term. A serve feature's split functions (splitLoRA,
// splitV2State, ...) use it; n beyond the line's bytes is cut to them,
// and nothing is split where n is 0 or the term has no line. The new line
// is charged to the budget or beside it as the term's line is (the graph
// term may be beside it, splitDraftGraphs).
func splitOut(lines []engine.FootprintLine, t budget.Term, label string, n uint64) []engine.FootprintLine {
	if n == 0 {
		return lines
	}
	for i, l := range lines {
		if l.Label != termLabels[t] {
			continue
		}
		n = min(n, l.Bytes)
		lines[i].Bytes -= n
		return slices.Insert(lines, i+1, engine.FootprintLine{Label: label, Bytes: n, Beside: l.Beside})
	}
	return lines
}

// Lines returns the footprint term by term: the terms charged to the util
// budget, then those vLLM allocates beside it.
func (s section) Lines(fp budget.Footprint) []engine.FootprintLine {
	beside := s.sz.plan.Beside
	var out []engine.FootprintLine
	for t := range budget.NumTerms {
		if !beside.Has(t) {
			out = append(out, engine.FootprintLine{Label: termLabels[t], Bytes: fp.Terms[t]})
		}
	}
	out = s.sz.splitLoRA(out, fp)
	out = s.sz.splitEPLB(out, fp)
	out = s.sz.splitDraft(out, fp)
	out = s.sz.splitEncoderCache(out, fp)
	out = s.sz.splitEncoderPass(out, fp)
	out = s.sz.splitSpec(out, fp)
	out = s.sz.splitA2A(out)
	out = s.sz.splitUnifiedHost(out, fp)
	out = s.sz.splitV2State(out, fp)
	out = s.sz.splitSpecV2(out, fp)
	out = s.sz.splitColdCompile(out, fp)
	for t := range budget.NumTerms {
		if beside.Has(t) {
			out = append(out, engine.FootprintLine{Label: termLabels[t], Bytes: fp.Terms[t], Beside: true})
		}
	}
	out = s.sz.labelGraphs(s.sz.splitDraftGraphs(out, fp))
	if fp.BesideFixed > 0 {
		out = append(out, engine.FootprintLine{Label: besideAfterSnapshotLabel, Bytes: fp.BesideFixed, Beside: true})
	}
	return out
}

// words name vLLM's util budget and the driver's side.
var words = engine.Words{
	Width:           26,
	Ledger:          "= ledger",
	Budget:          "util budget",
	BudgetOver:      "  budget: the ledger is %s over the util budget\n",
	BudgetHeadroom:  "  budget: %s of headroom (util budget - ledger)\n",
	OutsideOver:     "  driver: util budget + what stands beside it is %s over device memory\n",
	OutsideHeadroom: "  driver: %s of headroom (device - util budget - what stands beside it)\n",
	CeilingAbove:    "  ceiling: the util budget is %s above the class's util_ceiling (%s of device memory): above the evidence, within the arithmetic (the driver line above)\n",
}

func (s section) Words() engine.Words { return words }

func (s section) Shortfall(fp budget.Footprint) string { return s.sz.shortfall(fp) }

func (s section) Setting() string {
	return fmt.Sprintf("--gpu-memory-utilization %v", s.sz.Serve.GPUMemoryUtilization)
}

// groups names the serve's KV cache groups as vLLM's spec classes do.
func (sz *Sizing) groups() string { return groupNames(sz.Model.Arch, sz.check.groups) }

// startsProfiled reports whether vLLM starts the serve with a KV cache
// sized from its profile run (not an encoder-only pooling serve, which has
// none): the start that the notes on what moves that cache (a cold
// compile, the graph estimate's swing) speak of, written under
// WriteAfter's "vLLM starts" line.
func (sz *Sizing) startsProfiled() bool {
	c := sz.capacity
	return !sz.encoderOnly() && c.Starts && !c.SeqsOverStateBlocks
}
