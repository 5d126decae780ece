package vllm

import (
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"membudget/engine"
	"membudget/model"
)

// TestSkipLayersByHand: --kv-cache-dtype-skip-layers on a full-attention
// model and on a sliding-window one, the block size, per-layer pages and
// block bytes worked out by hand, the blocks from the budget's available
// memory.
func TestSkipLayersByHand(t *testing.T) {
	archs := shipped(t)
	llama, oss := archs["meta-llama__Llama-3.1-8B-Instruct"], archs["openai__gpt-oss-20b"]
	// Llama-3.1-8B: 32 layers of full attention, 8 KV heads of 128, bf16.
	// A token of a layer is 2 x 8 x 128 = 2048 values: 2048 B in fp8,
	// 4096 B in bf16.
	llamaPages := func(block, skipped uint64) []uint64 {
		pages := make([]uint64, 32)
		for i := range pages {
			pages[i] = block * 2048 // fp8
		}
		pages[0], pages[31] = skipped, skipped // bf16
		return pages
	}
	// gpt-oss-20b: 24 layers, the even ones sliding (window 128), 8 KV
	// heads of 64, bf16: 1024 B a token of a layer in fp8, 2048 B in bf16.
	ossPages := func(page uint64) []uint64 {
		pages := make([]uint64, 12) // one tensor per slot of a 12-layer group
		for i := range pages {
			pages[i] = page
		}
		return pages
	}
	tests := []struct {
		name    string
		arch    *model.Arch
		release string
		serve   Serve
		// block is the block size vLLM runs at, blockBytes a block of
		// every tensor, pages each tensor's page, padded the shared page.
		block, blockBytes, padded uint64
		pages                     []uint64
		groups                    string
	}{
		{
			// main: the platform raises the block to 16 x cdiv(4096 x 16,
			// 16 x 2048) = 32 (interface.py:736-752); one
			// UniformTypeKVCacheSpecs group, a tensor per layer: 30 fp8
			// pages of 32 x 2048 = 65536 B and 2 bf16 of 131072 B, a block
			// 30 x 65536 + 2 x 131072 = 2228224 B. The shared page 32 x
			// 2048 = 65536 B pads no layer here (no sliding one).
			name: "llama main", arch: llama, release: "main",
			serve: Serve{KVCacheDtype: "fp8", KVCacheDtypeSkipLayers: "0 31", MaxModelLen: 8192},
			block: 32, blockBytes: 2228224, padded: 65536, pages: llamaPages(32, 131072), groups: "UniformTypeKVCacheSpecsx1",
		},
		{
			// --block-size 64: 64 x cdiv(65536, 64 x 2048) = 64, no raise;
			// 30 x 131072 + 2 x 262144 = 4456448 B.
			name: "llama main block 64", arch: llama, release: "main",
			serve: Serve{KVCacheDtype: "fp8", KVCacheDtypeSkipLayers: "31 0", MaxModelLen: 8192, BlockSize: 64},
			block: 64, blockBytes: 4456448, padded: 131072, pages: llamaPages(64, 262144), groups: "UniformTypeKVCacheSpecsx1",
		},
		{
			// --block-size 16 given: raised all the same, 16 x cdiv(65536,
			// 16 x 2048) = 32 ("May override the user's --block-size").
			name: "llama main block 16", arch: llama, release: "main",
			serve: Serve{KVCacheDtype: "fp8", KVCacheDtypeSkipLayers: "0 31", MaxModelLen: 8192, BlockSize: 16},
			block: 32, blockBytes: 2228224, padded: 65536, pages: llamaPages(32, 131072), groups: "UniformTypeKVCacheSpecsx1",
		},
		{
			// 0.19.0, before the alignment (#42890): block 16, 30 x 32768
			// + 2 x 65536 = 1114112 B.
			name: "llama 0.19.0", arch: llama, release: "0.19.0",
			serve: Serve{KVCacheDtype: "fp8", KVCacheDtypeSkipLayers: "0 31", MaxModelLen: 8192},
			block: 16, blockBytes: 1114112, pages: llamaPages(16, 65536), groups: "UniformTypeKVCacheSpecsx1",
		},
		{
			// main, sliding_window: block 16 x cdiv(2048 x 16, 16 x 1024)
			// = 32, shared page 32 x 1024 = 32768 B. A bf16 sliding layer
			// takes the largest kernel block within it, 16 on every
			// backend (32 x 2048 > 32768), its page padded to 32768; a
			// full fp8 layer 32 x 1024 = 32768. One page: a sliding and a
			// full group of 12 layers, a block 12 x 32768 = 393216 B.
			name: "gpt-oss main sliding", arch: oss, release: "main",
			serve: Serve{KVCacheDtype: "fp8", KVCacheDtypeSkipLayers: "sliding_window", MaxModelLen: 8192},
			block: 32, blockBytes: 393216, padded: 32768, pages: ossPages(32768), groups: "SlidingWindowx1 FullAttentionx1",
		},
		{
			// 0.24.0: block 16; a bf16 sliding page 16 x 2048 = 32768 B, a
			// full fp8 one 16 x 1024 = 16384, which unify scales to 32
			// tokens and 32768 B: the same 393216 B block.
			name: "gpt-oss 0.24.0 sliding", arch: oss, release: "0.24.0",
			serve: Serve{KVCacheDtype: "fp8", KVCacheDtypeSkipLayers: "sliding_window", MaxModelLen: 8192},
			block: 16, blockBytes: 393216, pages: ossPages(32768), groups: "SlidingWindowx1 FullAttentionx1",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := NewReference(tt.arch, tt.serve, testClass(false), mustProfile(tt.release))
			if err != nil {
				t.Fatal(err)
			}
			c := r.Capacity()
			type got struct {
				Block, BlockBytes, Padded uint64
				Pages                     []uint64
				Groups                    string
			}
			want := got{tt.block, tt.blockBytes, tt.padded, tt.pages, tt.groups}
			g := got{r.Serve.BlockSize, c.BlockBytes, r.Serve.SkipPagePadded, r.groups.tensorPages(r.stages[0].sharding), r.Groups()}
			if diff := cmp.Diff(want, g); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			// The blocks are the available memory in whole blocks
			// (get_kv_cache_config_from_groups); one group's hold a block
			// size of tokens each (a sliding model's tokens are its groups'
			// share, capacity_test.go's).
			tokens := c.Blocks * tt.block
			if tt.groups != "UniformTypeKVCacheSpecsx1" {
				tokens = c.Tokens
			}
			if c.Blocks != c.AvailableBytes/tt.blockBytes || c.Tokens != tokens {
				t.Errorf("%d blocks, %d tokens of %d B available; want %d blocks, %d tokens",
					c.Blocks, c.Tokens, c.AvailableBytes, c.AvailableBytes/tt.blockBytes, c.AvailableBytes/tt.blockBytes*tt.block)
			}
		})
	}
}

// TestSkipLayersLedgerNamesDtype: the ledger names each skipped layer's
// KV tensor with the model's dtype, and the report's summary splits them.
func TestSkipLayersLedgerNamesDtype(t *testing.T) {
	llama := shipped(t)["meta-llama__Llama-3.1-8B-Instruct"]
	r := ref(t, llama, Serve{KVCacheDtype: "fp8", KVCacheDtypeSkipLayers: "0 31", MaxModelLen: 8192}, testClass(false))
	items := kvItems(r.groups, &r.Serve, r.stages[0].sharding, 1, 32)
	// One sequence of 32 tokens: one block of each layer, 131072 B for the
	// bf16 layers, 65536 B for the fp8 ones.
	got := map[string]uint64{}
	for _, it := range items {
		got[it.Name] = it.Bytes
	}
	for name, bytes := range map[string]uint64{
		"kv_cache.0[layers 0:bfloat16]":   131072,
		"kv_cache.1[layers 1]":            65536,
		"kv_cache.31[layers 31:bfloat16]": 131072,
	} {
		if got[name] != bytes {
			t.Errorf("%s: %d B, want %d (items %v)", name, got[name], bytes, items)
		}
	}
	if s, want := r.Serve.skipSummary(llama), "layers 0,31 keep bfloat16 (2 bytes), 30 layers fp8 (1 byte); block size 32 (vLLM aligns it so the fp8 page covers a skipped one)"; s != want {
		t.Errorf("summary %q, want %q", s, want)
	}
}

// TestSkipLayersRefusals: what vLLM would ignore, what changes nothing and
// what membudget has not read are refused by name.
func TestSkipLayersRefusals(t *testing.T) {
	archs := shipped(t)
	llama, oss := archs["meta-llama__Llama-3.1-8B-Instruct"], archs["openai__gpt-oss-20b"]
	fp8 := func(skip string) Serve {
		return Serve{KVCacheDtype: "fp8", KVCacheDtypeSkipLayers: skip, MaxModelLen: 8192}
	}
	tests := []struct {
		name    string
		arch    *model.Arch
		release string
		serve   Serve
		says    string // "" for no refusal
	}{
		{"before its release", llama, "0.18.0", fp8("0"), "not a flag of vLLM 0.18.0: vLLM 0.19.0 added it (#33695)"},
		{"auto", llama, "main", Serve{KVCacheDtypeSkipLayers: "0", MaxModelLen: 8192}, "with --kv-cache-dtype auto every layer's KV cache is the model's dtype (bfloat16) already"},
		{"the model's dtype", llama, "main", Serve{KVCacheDtype: "bfloat16", KVCacheDtypeSkipLayers: "0", MaxModelLen: 8192}, "changes nothing"},
		{"out of range", llama, "main", fp8("0 32"), "layer 32 is out of range: corpus/models/meta-llama__Llama-3.1-8B-Instruct.json has 32 layers (0 to 31)"},
		{"commas", llama, "main", fp8("0,31"), `"0,31" matches no layer`},
		{"leading zero", llama, "main", fp8("00"), `"00" matches no layer`},
		{"negative", llama, "main", fp8("-1"), `"-1" matches no layer`},
		{"no sliding layer", llama, "main", fp8("sliding_window"), "has no sliding-window layer"},
		{"MLA", archs["deepseek-ai__DeepSeek-V2-Lite"], "main", fp8("0"), "an MLA model's skipped layers are not modelled"},
		{"MLA 0.19.0", archs["deepseek-ai__DeepSeek-V2-Lite"], "0.19.0", fp8("0"), "an MLA model's skipped layers are not modelled"},
		{"gated delta net", archs["Qwen__Qwen3-Next-80B-A3B-Thinking"], "main", fp8("3"), "is modelled on models of full and sliding-window attention only"},
		// An fp8 sliding layer under the 32768 B shared page: 16 on
		// FlashAttention (MultipleOf(16)), 32 on FlashInfer (32 x 1024 B
		// fits): the backend decides, membudget does not pick it.
		{"backend decides", oss, "main", fp8("0"), "sliding layer 2's kernel block under the shared page of 32768 bytes is 16 on FlashAttention and Triton but 32 on another backend"},
		// Layer 1 is full: its bf16 page, 32 x 2048 = 65536 B, is twice
		// the shared page the sliding layers are padded to.
		{"full beside sliding", oss, "main", fp8("sliding_window 1"), "full-attention layer 1 beside sliding-window layers: vLLM stops at startup: its page (65536 bytes a block) is above the shared page (32768)"},
		// Gemma 4's global layers (4 KV heads of 512 on a rank) keep a
		// page of 32 x 2 x 4 x 512 = 131072 B in fp8 beside the shared
		// 32 x 2 x 16 x 256 = 262144 B of the model's head shape.
		{"own head shape", archs["google__gemma-4-31B-it"], "main", fp8("sliding_window"), "full-attention layer 5 has a head shape of its own (a page of 131072 bytes a block beside the shared page of 262144"},
		// Before the alignment, both are the plain per-layer dtype.
		{"backend 0.24.0", oss, "0.24.0", fp8("0"), ""},
		{"full beside sliding 0.24.0", oss, "0.24.0", fp8("sliding_window 1"), ""},
		{"fp16 KV on bf16", llama, "main", Serve{KVCacheDtype: "float16", KVCacheDtypeSkipLayers: "0", MaxModelLen: 8192}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewReference(tt.arch, tt.serve, testClass(false), mustProfile(tt.release))
			if tt.says == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			wantRefusal(t, err, "kv-cache-dtype-skip-layers", tt.says)
		})
	}
}

// TestSkipLayersFlagByRelease: the flag is sized from 0.19.0 (#33695) and
// is not a flag of 0.18.0; given in either spelling it passes the check.
func TestSkipLayersFlagByRelease(t *testing.T) {
	set, err := engine.NewSet(Engine{})
	if err != nil {
		t.Fatal(err)
	}
	own := func(string) bool { return false }
	for _, args := range [][]string{
		{"--kv-cache-dtype", "fp8", "--kv-cache-dtype-skip-layers", "0"},
		{"--kv_cache_dtype_skip_layers=sliding_window"},
		{"--vllm-version", "0.19.0", "--kv-cache-dtype-skip-layers", "0"},
	} {
		if err := set.Check(Engine{}, args, own); err != nil {
			t.Errorf("%q: %v", args, err)
		}
	}
	err = set.Check(Engine{}, []string{"--vllm-version", "0.18.0", "--kv-cache-dtype-skip-layers", "0"}, own)
	if want := "--kv-cache-dtype-skip-layers is not a flag of vLLM 0.18.0 (vLLM 0.19.0 added it, #33695 (2026-03-27))"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("0.18.0: %v; want %q", err, want)
	}
}

// TestSkipLayersCommand: the launch line passes the entries as argparse's
// nargs "+" reads them.
func TestSkipLayersCommand(t *testing.T) {
	llama := shipped(t)["meta-llama__Llama-3.1-8B-Instruct"]
	r := ref(t, llama, Serve{KVCacheDtype: "fp8", KVCacheDtypeSkipLayers: " 0  31 ", MaxModelLen: 8192}, testClass(false))
	if line, want := Command("m", &r.Serve), "--kv-cache-dtype fp8 --kv-cache-dtype-skip-layers 0 31 "; !strings.Contains(line, want) {
		t.Errorf("%s\nwant it to hold %q", line, want)
	}
}

// TestSkipMoreNeverMoreTokens: at a fixed KV cache memory, skipping a
// superset of layers never gives more tokens (every skipped layer's page
// only grows, and the raised block size only rounds down), and the
// compiled plan is the reference's.
func TestSkipMoreNeverMoreTokens(t *testing.T) {
	llama := shipped(t)["meta-llama__Llama-3.1-8B-Instruct"]
	n := len(llama.Layers)
	rapid.Check(t, func(t *rapid.T) {
		release := rapid.SampledFrom([]string{"main", "0.25.0", "0.24.0", "0.19.0"}).Draw(t, "release")
		mem := rapid.Uint64Range(1<<30, 40<<30).Draw(t, "kv bytes")
		less := rapid.SliceOfDistinct(rapid.IntRange(0, n-1), rapid.ID).Draw(t, "skipped")
		more := append(less, rapid.SliceOfDistinct(rapid.IntRange(0, n-1), rapid.ID).Draw(t, "more")...)
		tokens := func(skip []int) uint64 {
			s := Serve{KVCacheDtype: "fp8", KVCacheMemoryBytes: mem, MaxModelLen: 8192}
			var parts []string
			seen := map[int]bool{}
			for _, i := range skip {
				if !seen[i] {
					seen[i] = true
					parts = append(parts, strconv.Itoa(i))
				}
			}
			s.KVCacheDtypeSkipLayers = strings.Join(parts, " ")
			r, err := NewReference(llama, s, testClass(false), mustProfile(release))
			if err != nil {
				t.Fatalf("skip %q: %v", s.KVCacheDtypeSkipLayers, err)
			}
			compilerIsReference(t, llama, s, testClass(false), mustProfile(release))
			return r.Capacity().Tokens
		}
		if a, b := tokens(less), tokens(more); b > a {
			t.Fatalf("skipping %v: %d tokens, more than %d skipping %v", more, b, a, less)
		}
	})
}

// TestBuildServeReadsSkipLayers: a log's non-default args give the
// skipped layers as vLLM's list of strings; a value that is not one is an
// error naming the flag.
func TestBuildServeReadsSkipLayers(t *testing.T) {
	tests := []struct {
		value, want, err string
	}{
		{"['0', '31']", "0 31", ""},
		{`["sliding_window"]`, "sliding_window", ""},
		{"['0,31']", "0,31", ""}, // one entry, which resolving refuses
		{"[]", "", ""},
		{"'0'", "", "is not a list of layer indices or sliding_window: pass --kv-cache-dtype-skip-layers"},
		{"[0, 31]", "", "is not a list of layer indices or sliding_window"},
	}
	for _, tt := range tests {
		log := "INFO non-default args: {'model': 'm', 'kv_cache_dtype': 'fp8', 'kv_cache_dtype_skip_layers': " + tt.value + "}\n"
		got, err := buildServe(logSource(t, log).Log, Serve{}, nil)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s: %v, want %q", tt.value, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", tt.value, err)
		}
		if got.Serve.KVCacheDtypeSkipLayers != tt.want {
			t.Errorf("%s: %q, want %q", tt.value, got.Serve.KVCacheDtypeSkipLayers, tt.want)
		}
	}
}

// TestSkipLayersBlocksAsVLLMPlans: at a KV cache of 56 GiB, the blocks
// vLLM's own planner allocates (vllm/v1/core/kv_cache_utils.py and
// kv_cache_interface.py at d18bb7b, run on these specs with stand-ins
// for torch: get_kv_cache_groups, get_kv_cache_config_from_groups), each
// also 56 GiB = 60129542144 B over the block bytes, rounded down.
func TestSkipLayersBlocksAsVLLMPlans(t *testing.T) {
	archs := shipped(t)
	llama, oss := archs["meta-llama__Llama-3.1-8B-Instruct"], archs["openai__gpt-oss-20b"]
	kv := uint64(56 << 30)
	serve := func(skip string, block uint64) Serve {
		return Serve{KVCacheDtype: "fp8", KVCacheDtypeSkipLayers: skip, KVCacheMemoryBytes: kv, MaxModelLen: 8192, BlockSize: block}
	}
	tests := []struct {
		name    string
		arch    *model.Arch
		release string
		serve   Serve
		blocks  uint64
		groups  string
	}{
		{"llama main", llama, "main", serve("0 31", 0), 26985, "UniformTypeKVCacheSpecsx1"},                  // 60129542144 / 2228224
		{"llama main block 64", llama, "main", serve("0 31", 64), 13492, "UniformTypeKVCacheSpecsx1"},        // / 4456448
		{"llama 0.19.0", llama, "0.19.0", serve("0 31", 0), 53970, "UniformTypeKVCacheSpecsx1"},              // / 1114112
		{"gpt-oss main", oss, "main", serve("sliding_window", 0), 152917, "SlidingWindowx1 FullAttentionx1"}, // / 393216
		{"gpt-oss 0.24.0", oss, "0.24.0", serve("sliding_window", 0), 152917, "SlidingWindowx1 FullAttentionx1"},
		// Layer 0 alone in bf16: 24 groups of one layer (the group size
		// is the fewest layers of a spec, 1), a block one 32768 B page.
		{"gpt-oss 0.24.0 layer 0", oss, "0.24.0", serve("0", 0), 1835008, "SlidingWindowx12 FullAttentionx12"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := NewReference(tt.arch, tt.serve, testClass(false), mustProfile(tt.release))
			if err != nil {
				t.Fatal(err)
			}
			if got := r.Blocks(); got != tt.blocks || r.Groups() != tt.groups {
				t.Errorf("%d blocks, groups %s; vLLM's planner: %d, %s", got, r.Groups(), tt.blocks, tt.groups)
			}
		})
	}
}

// TestPyStringList: a log's kv_cache_dtype_skip_layers, as Python prints a
// list of strings, read into the flag's space-separated entries; anything
// else (bare integers, a missing comma or bracket, an empty or spaced
// entry) is not taken, and no input panics.
func TestPyStringList(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in, want string
		ok       bool
	}{
		{"['0', '31']", "0 31", true},
		{"['sliding_window']", "sliding_window", true},
		{`["0", 'sliding_window']`, "0 sliding_window", true},
		{" [ '1' ,'2' ] ", "1 2", true},
		{"[]", "", true},
		{"[0, 31]", "", false},    // integers: vLLM's list holds strings
		{"['0' '31']", "", false}, // no comma
		{"['0', '31'", "", false}, // no closing bracket
		{"['0',", "", false},      // cut after a comma
		{"['']", "", false},       // an empty entry
		{"['a b']", "", false},    // an entry with a space
		{"['0\"]", "", false},     // quotes that do not pair
		{"'0'", "", false},        // not a list
		{"", "", false},
		{"[", "", false},
	}
	for _, tt := range tests {
		got, ok := pyStringList(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("pyStringList(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
	rapid.Check(t, func(t *rapid.T) {
		s := rapid.StringOf(rapid.SampledFrom([]rune("[]'\", 0a_"))).Draw(t, "s")
		pyStringList(s) // must not panic
	})
}
