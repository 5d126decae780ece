package model

import (
	"fmt"
	"testing"

	"membudget/model/safetensors"
)

func init() {
	for name, s := range map[string]shape{
		// c4ai-command-r-v01: 40 layers of 8192, 64 heads and 64 KV heads
		// of 8192 / 64 = 128, no head_dim key; 256,000 tokens, 8192
		// positions (rope_theta 8e6, no rope_scaling), the head tied (the
		// file leaves tie_word_embeddings to PretrainedConfig's true),
		// float16.
		"CohereForAI__c4ai-command-r-v01": {ModelType: "cohere", Layers: 40, Hidden: 8192, Heads: 64, KVHeads: 64, HeadDim: 128,
			Vocab: 256000, MaxPos: 8192, Tied: true, RotaryDim: 128, Dtype: "float16"},
		// c4ai-command-r7b-12-2024: 32 layers of 4096, 32 heads and 8 KV
		// heads of head_dim 128; sliding_window_pattern 4 over
		// sliding_window 4096: layers 3, 7, ... 31 full, the other 24
		// sliding; 256,000 tokens, 8192 positions, tied
		// (use_embedding_sharing; no tie_word_embeddings key), bf16.
		"CohereForAI__c4ai-command-r7b-12-2024": {ModelType: "cohere2", Layers: 32, Hidden: 4096, Heads: 32, KVHeads: 8, HeadDim: 128,
			Vocab: 256000, MaxPos: 8192, Tied: true, Sliding: 24, Window: 4096, RotaryDim: 128, Dtype: "bfloat16"},
		// internlm2_5-7b-chat: 32 layers of 4096, 32 heads and 8 KV heads
		// of 128, 92,544 tokens, 32,768 positions, dynamic rope x2, untied,
		// bf16.
		"internlm__internlm2_5-7b-chat": {ModelType: "internlm2", Layers: 32, Hidden: 4096, Heads: 32, KVHeads: 8, HeadDim: 128,
			Vocab: 92544, MaxPos: 32768, RotaryDim: 128, Rope: "dynamic", Dtype: "bfloat16"},
		// Seed-OSS-36B-Instruct: 64 layers of 5120, 80 heads and 8 KV heads
		// of head_dim 128, 155,136 tokens, 524,288 positions (rope_type
		// default, theta 1e7), untied, bf16.
		"ByteDance-Seed__Seed-OSS-36B-Instruct": {ModelType: "seed_oss", Layers: 64, Hidden: 5120, Heads: 80, KVHeads: 8, HeadDim: 128,
			Vocab: 155136, MaxPos: 524288, RotaryDim: 128, Rope: "default", Dtype: "bfloat16"},
		// glm-4-9b-chat-hf: 40 layers of 4096, 32 heads and 2 KV heads of
		// head_dim 128, half of each head rotary (glm.py), 151,552 tokens,
		// 131,072 positions, untied, bf16.
		"THUDM__glm-4-9b-chat-hf": {ModelType: "glm", Layers: 40, Hidden: 4096, Heads: 32, KVHeads: 2, HeadDim: 128,
			Vocab: 151552, MaxPos: 131072, RotaryDim: 64, Dtype: "bfloat16"},
		// MiMo-7B-Base: 36 layers of 4096, 32 heads and 8 KV heads of 128,
		// 151,680 tokens, 32,768 positions, no sliding (use_sliding_window
		// false), untied, one MTP layer, bf16.
		"XiaomiMiMo__MiMo-7B-Base": {ModelType: "mimo", Layers: 36, Hidden: 4096, Heads: 32, KVHeads: 8, HeadDim: 128,
			Vocab: 151680, MaxPos: 32768, RotaryDim: 128, MTP: 1, Dtype: "bfloat16"},
		// internlm3-8b-instruct: 48 layers of 4096, 32 heads and 2 KV heads
		// of head_dim 128, 128,512 tokens, 32,768 positions, dynamic rope
		// x6, untied, bf16.
		"internlm__internlm3-8b-instruct": {ModelType: "internlm3", Layers: 48, Hidden: 4096, Heads: 32, KVHeads: 2, HeadDim: 128,
			Vocab: 128512, MaxPos: 32768, RotaryDim: 128, Rope: "dynamic", Dtype: "bfloat16"},
	} {
		shippedShapes[name] = s
	}
}

// miniCPM2BHeader is openbmb/MiniCPM-2B-dpo-bf16's checkpoint (the corpus
// holds mlx-community's conversion of it, the same shapes) in Llama's
// names, as openbmb's remote modeling_minicpm.py names its modules
// (MiniCPMModel's embed_tokens, layers.N.self_attn.q/k/v/o_proj,
// mlp.gate/up/down_proj, input_layernorm and post_attention_layernorm,
// norm; the head tied, so no lm_head), shapes from the corpus config: 40
// layers of 2304 wide, 36 heads and 36 KV heads of 64, MLP 5760, 122,753
// tokens, bf16.
func miniCPM2BHeader() (string, []safetensors.Tensor) {
	return corpusConfig("mlx-community__MiniCPM-2B-dpo-bf16"), denseShape{
		layers: 40, h: 2304, q: 2304, kv: 2304, inter: 5760, v: 122753, tied: true,
		norms: []string{"input_layernorm", "post_attention_layernorm"},
	}.tensors()
}

// TestMiniCPM2BHeader: the checkpoint's 362 tensors (40 layers of 9, the
// embedding and the final norm) hold 2,724,880,896 parameters, the count
// a stored chat front end prints for the MiniCPM-2B it serves ("with
// 2724880896 (2.7B) parameters", index file id 41738685489) and stored
// MTEB entries give for MiniCPM-2B based embedders of its 2304 width (ids
// 3628189387, 15815799305). By hand: the embedding 122,753 x 2304 =
// 282,822,912; a layer's q, k, v and o 4 x 2304^2 = 21,233,664 (36 KV
// heads: MHA), the MLP 3 x 5760 x 2304 = 39,813,120, two norms 4608:
// 61,051,392, x 40 = 2,442,055,680; the final norm 2304. bf16: 2 B each.
// At one rank vLLM pads the 122,753 rows to 122,816, the next multiple of
// 64 (VocabParallelEmbedding's padding): 63 x 2304 x 2 B more, and holds
// the rotary table of 4096 positions x 64 x 2 B. The checkpoint and the
// config agree rank by rank.
func TestMiniCPM2BHeader(t *testing.T) {
	_, ts := miniCPM2BHeader()
	checkHeaderNames(t, ts, 362)
	const params = 282_822_912 + 40*61_051_392 + 2304
	if got, want := headerTotal(ts), uint64(2*params); got != want || params != 2_724_880_896 {
		t.Errorf("header total %d B, by hand %d (%d parameters), the published count is 2,724,880,896", got, want, params)
	}
	checkByHand(t, []byHandCase{{
		name: "MiniCPM-2B-dpo-bf16", fixture: miniCPM2BHeader,
		ranks: []byHandRank{{"TP1", tpRanks(1, 0), 2*params + 63*2304*2 + 4096*64*2, ""}},
	}})
	checkHeaderRanks(t, miniCPM2BHeader)
}

// exaone3_7BHeader is LGAI-EXAONE/EXAONE-3.0-7.8B-Instruct's checkpoint in
// its remote modeling_exaone.py's names (transformer.wte, transformer.h.N
// with ln_1, attn.attention.q/k/v_proj and out_proj, ln_2, mlp.c_fc_0,
// c_fc_1 and c_proj, transformer.ln_f, and the untied lm_head, as a stored
// test's expected EXAONE state_dict keys list them, index file id
// 51848128018), shapes
// from the corpus config: 32 layers of 4096 wide, 32 heads and 8 KV heads
// of 128, MLP 14,336, 102,400 tokens, bf16.
func exaone3_7BHeader() (string, []safetensors.Tensor) {
	const L, H, KV, I, V = 32, 4096, 1024, 14336, 102400
	ts := []safetensors.Tensor{bf16("transformer.wte.weight", V, H)}
	for l := range L {
		p := fmt.Sprintf("transformer.h.%d.", l)
		ts = append(ts,
			bf16(p+"ln_1.weight", H), bf16(p+"ln_2.weight", H),
			bf16(p+"attn.attention.q_proj.weight", H, H), bf16(p+"attn.attention.k_proj.weight", KV, H),
			bf16(p+"attn.attention.v_proj.weight", KV, H), bf16(p+"attn.attention.out_proj.weight", H, H),
			bf16(p+"mlp.c_fc_0.weight", I, H), bf16(p+"mlp.c_fc_1.weight", I, H), bf16(p+"mlp.c_proj.weight", H, I))
	}
	return corpusConfig("LGAI-EXAONE__EXAONE-3.0-7.8B-Instruct"), append(ts, bf16("transformer.ln_f.weight", H), bf16("lm_head.weight", V, H))
}

// TestExaone3_7BHeader: the checkpoint's 291 tensors (32 layers of 9, the
// embedding, ln_f and the head) hold 7,818,448,896 parameters by hand; no
// published total was found to hold them to (searched: that count, twice
// it, "EXAONE-3.0-7.8B-Instruct total_size"), the model card says 7.8B.
// By hand: wte and the untied head 2 x 102,400 x 4096 = 838,860,800; a
// layer's q and out_proj 2 x 4096^2, k and v 2 x 1024 x 4096, c_fc_0,
// c_fc_1 and c_proj 3 x 14,336 x 4096, ln_1 and ln_2 2 x 4096:
// 218,112,000, x 32 = 6,979,584,000; ln_f 4096. At one rank vLLM holds
// beside them the rotary table of 4096 positions x 128 x 2 B (102,400
// rows are a multiple of 64: no padding); the checkpoint and the config
// agree rank by rank.
func TestExaone3_7BHeader(t *testing.T) {
	_, ts := exaone3_7BHeader()
	checkHeaderNames(t, ts, 291)
	const params = 838_860_800 + 32*218_112_000 + 4096
	if got, want := headerTotal(ts), uint64(2*params); got != want || params != 7_818_448_896 {
		t.Errorf("header total %d B, by hand %d (%d parameters)", got, want, params)
	}
	checkByHand(t, []byHandCase{{
		name: "EXAONE-3.0-7.8B-Instruct", fixture: exaone3_7BHeader,
		ranks: []byHandRank{{"TP1", tpRanks(1, 0), 2*params + 4096*128*2, ""}},
	}})
	checkHeaderRanks(t, exaone3_7BHeader)
}

// commandRHeader is CohereForAI/c4ai-command-r-v01's checkpoint in
// transformers' modeling_cohere.py names (CohereModel's embed_tokens,
// layers.N.input_layernorm, the one weight-only LayerNorm of a layer whose
// attention and MLP run in parallel, self_attn.q/k/v/o_proj,
// mlp.gate/up/down_proj, norm; the head tied, so no lm_head), shapes from
// the corpus config: 40 layers of 8192 wide, 64 heads and 64 KV heads of
// 128, MLP 22,528, 256,000 tokens, float16 (transformers'
// docs/source/en/model_doc/cohere.md: "The checkpoints uploaded on the Hub
// use torch_dtype = 'float16'").
func commandRHeader() (string, []safetensors.Tensor) {
	const L, H, I, V = 40, 8192, 22528, 256000
	ts := []safetensors.Tensor{typed("F16", "model.embed_tokens.weight", V, H), typed("F16", "model.norm.weight", H)}
	for l := range L {
		p := fmt.Sprintf("model.layers.%d.", l)
		ts = append(ts, typed("F16", p+"input_layernorm.weight", H))
		for _, n := range []string{"q_proj", "k_proj", "v_proj", "o_proj"} {
			ts = append(ts, typed("F16", p+"self_attn."+n+".weight", H, H))
		}
		ts = append(ts, typed("F16", p+"mlp.gate_proj.weight", I, H), typed("F16", p+"mlp.up_proj.weight", I, H),
			typed("F16", p+"mlp.down_proj.weight", H, I))
	}
	return corpusConfig("CohereForAI__c4ai-command-r-v01"), ts
}

// TestCommandRHeader: the checkpoint's 322 tensors (40 layers of 8, the
// embedding and the final norm) hold 34,980,831,232 parameters by hand,
// 34.981 billion as the Hub counts the model's safetensors (the
// "params": 34.981 of stored leaderboard requests for
// CohereForAI/c4ai-command-r-v01 at main, e.g. OALL/requests and
// open-llm-leaderboard/requests, which read the Hub's count; no exact
// count or index total_size was found). By hand: the embedding 256,000 x
// 8192 = 2,097,152,000; a layer's q, k, v and o 4 x 8192^2 (64 KV heads:
// MHA) = 268,435,456, the MLP 3 x 22,528 x 8192 = 553,648,128, its norm
// 8192: 822,091,776, x 40 = 32,883,671,040; the final norm 8192. 2 B
// each. At one rank vLLM holds beside them the rotary table of 8192
// positions x 128 x 2 B (256,000 rows are a multiple of 64: no padding);
// the checkpoint and the config agree rank by rank.
func TestCommandRHeader(t *testing.T) {
	_, ts := commandRHeader()
	checkHeaderNames(t, ts, 322)
	const params = 2_097_152_000 + 40*822_091_776 + 8192
	if got, want := headerTotal(ts), uint64(2*params); got != want || params != 34_980_831_232 || (params+500_000)/1_000_000 != 34_981 {
		t.Errorf("header total %d B, by hand %d (%d parameters), the Hub counts 34.981B", got, want, params)
	}
	checkByHand(t, []byHandCase{{
		name: "c4ai-command-r-v01", fixture: commandRHeader,
		ranks: []byHandRank{{"TP1", tpRanks(1, 0), 2*params + 8192*128*2, ""}},
	}})
	checkHeaderRanks(t, commandRHeader)
}

// commandR7BHeader is CohereForAI/c4ai-command-r7b-12-2024's checkpoint in
// transformers' modeling_cohere2.py names (commandRHeader's: one
// input_layernorm a layer, no q or k norms, the head tied), shapes from
// the corpus config: 32 layers of 4096 wide, 32 heads and 8 KV heads of
// 128, MLP 14,336, 256,000 tokens, bf16.
func commandR7BHeader() (string, []safetensors.Tensor) {
	const L, H, KV, I, V = 32, 4096, 1024, 14336, 256000
	ts := []safetensors.Tensor{bf16("model.embed_tokens.weight", V, H), bf16("model.norm.weight", H)}
	for l := range L {
		p := fmt.Sprintf("model.layers.%d.", l)
		ts = append(ts, bf16(p+"input_layernorm.weight", H),
			bf16(p+"self_attn.q_proj.weight", H, H), bf16(p+"self_attn.k_proj.weight", KV, H),
			bf16(p+"self_attn.v_proj.weight", KV, H), bf16(p+"self_attn.o_proj.weight", H, H),
			bf16(p+"mlp.gate_proj.weight", I, H), bf16(p+"mlp.up_proj.weight", I, H), bf16(p+"mlp.down_proj.weight", H, I))
	}
	return corpusConfig("CohereForAI__c4ai-command-r7b-12-2024"), ts
}

// TestCommandR7BHeader: the checkpoint's 258 tensors (32 layers of 8, the
// embedding and the final norm) hold 8,028,033,024 parameters: 8.028
// billion as stored leaderboard requests give the Hub's count for
// c4ai-command-r7b-12-2024 at revision a9650f3b
// (open-llm-leaderboard/requests), and exactly the Hub's bf16 count a
// stored evaluation suite lists for CohereForAI/aya-expanse-8b, a Cohere
// model of the same widths ("computed via" HfApi's
// get_safetensors_metadata, index file id 12439498600). By hand: the
// embedding 256,000 x 4096 = 1,048,576,000; a layer's q and o 2 x 4096^2,
// k and v 2 x 1024 x 4096, the MLP 3 x 14,336 x 4096, its norm 4096:
// 218,107,904, x 32 = 6,979,452,928; the final norm 4096. bf16, 2 B each.
// At one rank vLLM holds beside them the rotary table of 8192 positions
// x 128 x 2 B (no padding: 256,000 rows are a multiple of 64); the
// checkpoint and the config agree rank by rank.
func TestCommandR7BHeader(t *testing.T) {
	_, ts := commandR7BHeader()
	checkHeaderNames(t, ts, 258)
	const params = 1_048_576_000 + 32*218_107_904 + 4096
	if got, want := headerTotal(ts), uint64(2*params); got != want || params != 8_028_033_024 {
		t.Errorf("header total %d B, by hand %d (%d parameters), the Hub counts 8,028,033,024", got, want, params)
	}
	checkByHand(t, []byHandCase{{
		name: "c4ai-command-r7b-12-2024", fixture: commandR7BHeader,
		ranks: []byHandRank{{"TP1", tpRanks(1, 0), 2*params + 8192*128*2, ""}},
	}})
	checkHeaderRanks(t, commandR7BHeader)
}

// internLM25_7BHeader is internlm/internlm2_5-7b-chat's checkpoint in its
// remote modeling_internlm2.py's names (model.tok_embeddings, layers.N
// with attention_norm, attention.wqkv, the q, k and v rows of each KV
// group stored fused, attention.wo, ffn_norm, feed_forward.w1, w3 and w2;
// model.norm and the untied output), shapes from the corpus config: 32
// layers of 4096 wide, 32 heads and 8 KV heads of 128 (wqkv (32 + 2 x 8)
// x 128 = 6144 rows), MLP 14,336, 92,544 tokens, bf16.
func internLM25_7BHeader() (string, []safetensors.Tensor) {
	const L, H, QKV, I, V = 32, 4096, 6144, 14336, 92544
	ts := []safetensors.Tensor{bf16("model.tok_embeddings.weight", V, H)}
	for l := range L {
		p := fmt.Sprintf("model.layers.%d.", l)
		ts = append(ts,
			bf16(p+"attention_norm.weight", H), bf16(p+"ffn_norm.weight", H),
			bf16(p+"attention.wqkv.weight", QKV, H), bf16(p+"attention.wo.weight", H, H),
			bf16(p+"feed_forward.w1.weight", I, H), bf16(p+"feed_forward.w3.weight", I, H), bf16(p+"feed_forward.w2.weight", H, I))
	}
	return corpusConfig("internlm__internlm2_5-7b-chat"), append(ts, bf16("model.norm.weight", H), bf16("output.weight", V, H))
}

// TestInternLM25_7BHeader: the checkpoint's 227 tensors (32 layers of 7,
// the embedding, the final norm and the head) hold 7,737,708,544
// parameters, the Hub's bf16 count for internlm/internlm2_5-7b-chat as a
// stored evaluation suite lists it ("computed via" HfApi's
// get_safetensors_metadata, index file id 12439498600); a stored audit
// of a local InternLM2 checkpoint of this shape (its model id not given)
// reads 227 tensors, 7,737,708,544 elements, all BF16, 15,475,417,088
// data bytes and wqkv [6144, 4096] (id 66695423343). By hand:
// tok_embeddings and the untied output 2 x 92,544 x 4096 = 758,120,448; a
// layer's wqkv 6144 x 4096 = 25,165,824, wo 4096^2 = 16,777,216, w1, w3
// and w2 3 x 14,336 x 4096 = 176,160,768, two norms 8192: 218,112,000, x
// 32 = 6,979,584,000; the final norm 4096. 2 B each. At one rank vLLM
// holds beside them the dynamic-NTK rotary table, which keeps
// max_position_embeddings rows (dynamic_ntk_scaling_rope.py at d18bb7b:
// arange(max_position_embeddings) over the stretched base), 32,768 x 128
// x 2 B; 92,544 rows are a multiple of 64 (no padding). The checkpoint and
// the config agree rank by rank: wqkv is split by KV group.
func TestInternLM25_7BHeader(t *testing.T) {
	_, ts := internLM25_7BHeader()
	checkHeaderNames(t, ts, 227)
	const params = 758_120_448 + 32*218_112_000 + 4096
	if got, want := headerTotal(ts), uint64(2*params); got != want || params != 7_737_708_544 {
		t.Errorf("header total %d B, by hand %d (%d parameters), the Hub counts 7,737,708,544", got, want, params)
	}
	checkByHand(t, []byHandCase{{
		name: "internlm2_5-7b-chat", fixture: internLM25_7BHeader,
		ranks: []byHandRank{{"TP1", tpRanks(1, 0), 2*params + 32768*128*2, ""}},
	}})
	checkHeaderRanks(t, internLM25_7BHeader)
}

// seedOSS36BHeader is ByteDance-Seed/Seed-OSS-36B-Instruct's checkpoint
// in transformers' modeling_seed_oss.py names (Llama's with q, k and v
// biased by attention_bias and o_proj not by attention_out_bias; the head
// untied), shapes from the corpus config: 64 layers of 5120 wide, 80 heads
// and 8 KV heads of 128, MLP 27,648, 155,136 tokens, bf16.
func seedOSS36BHeader() (string, []safetensors.Tensor) {
	return corpusConfig("ByteDance-Seed__Seed-OSS-36B-Instruct"), denseShape{
		layers: 64, h: 5120, q: 80 * 128, kv: 8 * 128, inter: 27648, v: 155136, qkvBias: true,
		norms: []string{"input_layernorm", "post_attention_layernorm"},
	}.tensors()
}

// TestSeedOSS36BHeader: the checkpoint's 771 tensors (64 layers of 12,
// the embedding, the final norm and the head) hold 36,151,104,512
// parameters, the count a stored snapshot of the model's raw config.json
// files gives for Seed-OSS-36B-Instruct and -Base from their index
// ("params/index", index file id 57091266702). By hand: the embedding and
// the untied head 2 x 155,136 x 5120 = 1,588,592,640; a layer's q 10,240
// x 5120 and its bias 10,240, k and v 2 x (1024 x 5120 + 1024), o 5120 x
// 10,240 unbiased, the MLP 3 x 27,648 x 5120, two norms 10,240:
// 540,039,168, x 64 = 34,562,506,752; the final norm 5120. 2 B each. At
// one rank vLLM holds beside them the rotary table of 524,288 positions x
// 128 x 2 B (155,136 rows are a multiple of 64: no padding); the
// checkpoint and the config agree rank by rank.
func TestSeedOSS36BHeader(t *testing.T) {
	_, ts := seedOSS36BHeader()
	checkHeaderNames(t, ts, 771)
	const params = 1_588_592_640 + 64*540_039_168 + 5120
	if got, want := headerTotal(ts), uint64(2*params); got != want || params != 36_151_104_512 {
		t.Errorf("header total %d B, by hand %d (%d parameters), the published count is 36,151,104,512", got, want, params)
	}
	checkByHand(t, []byHandCase{{
		name: "Seed-OSS-36B-Instruct", fixture: seedOSS36BHeader,
		ranks: []byHandRank{{"TP1", tpRanks(1, 0), 2*params + 524288*128*2, ""}},
	}})
	checkHeaderRanks(t, seedOSS36BHeader)
}

// glmLayout is the bf16 tensors of a GLM-4 9B checkpoint in transformers'
// modeling_glm.py and modeling_glm4.py names (q, k and v biased, o_proj
// not, the MLP's gate_up_proj stored fused, the head untied): 40 layers
// of 4096 wide, 32 heads and 2 KV heads of 128, MLP 13,696, 151,552
// tokens, each layer with the norms named.
func glmLayout(norms []string) []safetensors.Tensor {
	const L, H, KV, I, V = 40, 4096, 256, 13696, 151552
	ts := []safetensors.Tensor{bf16("model.embed_tokens.weight", V, H), bf16("model.norm.weight", H), bf16("lm_head.weight", V, H)}
	for l := range L {
		p := fmt.Sprintf("model.layers.%d.", l)
		for _, n := range norms {
			ts = append(ts, bf16(p+n+".weight", H))
		}
		ts = append(ts,
			bf16(p+"self_attn.q_proj.weight", H, H), bf16(p+"self_attn.q_proj.bias", H),
			bf16(p+"self_attn.k_proj.weight", KV, H), bf16(p+"self_attn.k_proj.bias", KV),
			bf16(p+"self_attn.v_proj.weight", KV, H), bf16(p+"self_attn.v_proj.bias", KV),
			bf16(p+"self_attn.o_proj.weight", H, H),
			bf16(p+"mlp.gate_up_proj.weight", 2*I, H), bf16(p+"mlp.down_proj.weight", H, I))
	}
	return ts
}

// glm4_9BChatHFHeader is THUDM/glm-4-9b-chat-hf's checkpoint: glmLayout
// with two norms a layer.
func glm4_9BChatHFHeader() (string, []safetensors.Tensor) {
	return corpusConfig("THUDM__glm-4-9b-chat-hf"), glmLayout([]string{"input_layernorm", "post_attention_layernorm"})
}

// TestGLM4_9BChatHFHeader: the checkpoint's 443 tensors (40 layers of 11,
// the embedding, the final norm and the head) hold 9,399,951,360
// parameters, the trainable parameters stored runs of
// THUDM/glm-4-9b-chat report (its ChatGLM form, the same weights: "has
// 9399951392 parameters, 9399951360 (100.00%) are trainable", index file
// id 29151670186; a stored chat front end: "with 9399951360 (9.4B)
// parameters", id 42305816254). By hand: the embedding and the untied
// head 2 x 151,552 x 4096 = 1,241,513,984; a layer's q 4096^2 and its
// bias 4096, k and v 2 x (256 x 4096 + 256), o 4096^2, gate_up 2 x 13,696
// x 4096, down 13,696 x 4096, two norms 8192: 203,960,832, x 40 =
// 8,158,433,280; the final norm 4096. 2 B each. At one rank vLLM holds
// beside them the rotary table of 131,072 positions x 64 (half of each
// head, glm.py) x 2 B (151,552 rows are a multiple of 64: no padding); the
// checkpoint and the config agree rank by rank.
func TestGLM4_9BChatHFHeader(t *testing.T) {
	_, ts := glm4_9BChatHFHeader()
	checkHeaderNames(t, ts, 443)
	const params = 1_241_513_984 + 40*203_960_832 + 4096
	if got, want := headerTotal(ts), uint64(2*params); got != want || params != 9_399_951_360 {
		t.Errorf("header total %d B, by hand %d (%d parameters), the published count is 9,399,951,360", got, want, params)
	}
	checkByHand(t, []byHandCase{{
		name: "glm-4-9b-chat-hf", fixture: glm4_9BChatHFHeader,
		ranks: []byHandRank{{"TP1", tpRanks(1, 0), 2*params + 131072*64*2, ""}},
	}})
	checkHeaderRanks(t, glm4_9BChatHFHeader)
}

// miMo7BHeader is XiaomiMiMo/MiMo-7B-Base's checkpoint (MiMo-7B-RL's
// shares it): Qwen2's names and shapes (q, k and v biased, the head
// untied; 36 layers of 4096 wide, 32 heads and 8 KV heads of 128, MLP
// 11,008, 151,680 tokens) and its one MTP layer under model.mtp_layers.0
// in the names a stored test lists as "the tensors MiMo-7B publishes for
// its draft block" (index file id 69734089471: token_layernorm,
// hidden_layernorm, input_proj over the two concatenated streams,
// final_layernorm and a Qwen2 decoder layer), bf16.
func miMo7BHeader() (string, []safetensors.Tensor) {
	const H, KV, I = 4096, 1024, 11008
	ts := denseShape{
		layers: 36, h: H, q: H, kv: KV, inter: I, v: 151680, qkvBias: true,
		norms: []string{"input_layernorm", "post_attention_layernorm"},
	}.tensors()
	p := "model.mtp_layers.0."
	ts = append(ts,
		bf16(p+"token_layernorm.weight", H), bf16(p+"hidden_layernorm.weight", H),
		bf16(p+"input_proj.weight", H, 2*H), bf16(p+"final_layernorm.weight", H),
		bf16(p+"input_layernorm.weight", H), bf16(p+"post_attention_layernorm.weight", H),
		bf16(p+"self_attn.q_proj.weight", H, H), bf16(p+"self_attn.q_proj.bias", H),
		bf16(p+"self_attn.k_proj.weight", KV, H), bf16(p+"self_attn.k_proj.bias", KV),
		bf16(p+"self_attn.v_proj.weight", KV, H), bf16(p+"self_attn.v_proj.bias", KV),
		bf16(p+"self_attn.o_proj.weight", H, H),
		bf16(p+"mlp.gate_proj.weight", I, H), bf16(p+"mlp.up_proj.weight", I, H), bf16(p+"mlp.down_proj.weight", H, I))
	return corpusConfig("XiaomiMiMo__MiMo-7B-Base"), ts
}

// TestMiMo7BHeader: the checkpoint's 451 tensors (36 layers of 12, the
// embedding, the final norm, the head and the MTP layer's 16) hold
// 7,833,409,536 parameters by hand; no published count or index total
// was found to hold them to (searched: that count, the model without its
// MTP layer, "MiMo-7B total_size"). By hand: the embedding and the untied
// head 2 x 151,680 x 4096 = 1,242,562,560; a layer's q 4096^2 and its bias
// 4096, k and v 2 x (1024 x 4096 + 1024), o 4096^2, the MLP 3 x 11,008 x
// 4096, two norms 8192: 177,223,680, x 36 = 6,380,052,480; the final norm
// 4096: 7,622,619,136 served. The MTP layer: a decoder layer 177,223,680,
// input_proj 4096 x 8192 = 33,554,432 and three norms 12,288:
// 210,790,400, which vLLM's MiMoForCausalLM does not load (mimo.py at
// d18bb7b skips model.mtp_layers; MiMoMTP loads them as the draft model).
// At one rank vLLM holds the 7,622,619,136 x 2 B and the rotary table of
// 32,768 positions x 128 x 2 B (151,680 rows are a multiple of 64: no
// padding); the checkpoint and the config agree rank by rank.
func TestMiMo7BHeader(t *testing.T) {
	_, ts := miMo7BHeader()
	checkHeaderNames(t, ts, 451)
	const served, mtp = 1_242_562_560 + 36*177_223_680 + 4096, 177_223_680 + 33_554_432 + 3*4096
	if got, want := headerTotal(ts), uint64(2*(served+mtp)); got != want || served+mtp != 7_833_409_536 {
		t.Errorf("header total %d B, by hand %d (%d parameters)", got, want, served+mtp)
	}
	checkByHand(t, []byHandCase{{
		name: "MiMo-7B-Base", fixture: miMo7BHeader,
		ranks: []byHandRank{{"TP1", tpRanks(1, 0), 2*served + 32768*128*2, ""}},
	}})
	checkHeaderRanks(t, miMo7BHeader)
}

// hunyuanA13BHeader is tencent/Hunyuan-A13B-Instruct's checkpoint in its
// remote modeling_hunyuan.py's names (the model's GitHub repository's
// models/, stored as tianyu1412/Hunyuan-A13B@df832ebc: query_layernorm
// and key_layernorm per head, mlp.gate.wg the router, built in float32
// whatever the model's dtype, mlp.shared_mlp and mlp.experts.N; the head
// tied, so no lm_head), shapes from the corpus config: 32 layers of 4096
// wide, 32 heads and 8 KV heads of 128, 64 experts of 3072 and a shared
// expert of 3072, 128,167 tokens, bf16 but the router.
func hunyuanA13BHeader() (string, []safetensors.Tensor) {
	const L, H, KV, HD, E, I, V = 32, 4096, 1024, 128, 64, 3072, 128167
	ts := []safetensors.Tensor{bf16("model.embed_tokens.weight", V, H), bf16("model.norm.weight", H)}
	for l := range L {
		p := fmt.Sprintf("model.layers.%d.", l)
		ts = append(ts,
			bf16(p+"input_layernorm.weight", H), bf16(p+"post_attention_layernorm.weight", H),
			bf16(p+"self_attn.q_proj.weight", H, H), bf16(p+"self_attn.k_proj.weight", KV, H),
			bf16(p+"self_attn.v_proj.weight", KV, H), bf16(p+"self_attn.o_proj.weight", H, H),
			bf16(p+"self_attn.query_layernorm.weight", HD), bf16(p+"self_attn.key_layernorm.weight", HD),
			typed("F32", p+"mlp.gate.wg.weight", E, H),
			bf16(p+"mlp.shared_mlp.gate_proj.weight", I, H), bf16(p+"mlp.shared_mlp.up_proj.weight", I, H),
			bf16(p+"mlp.shared_mlp.down_proj.weight", H, I))
		for e := range E {
			x := fmt.Sprintf("%smlp.experts.%d.", p, e)
			ts = append(ts, bf16(x+"gate_proj.weight", I, H), bf16(x+"up_proj.weight", I, H), bf16(x+"down_proj.weight", H, I))
		}
	}
	return corpusConfig("tencent__Hunyuan-A13B-Instruct"), ts
}

// TestHunyuanA13BHeader: the checkpoint's 6,530 tensors (32 layers of 12
// and 64 experts of 3, the embedding and the final norm) hold
// 80,393,183,232 parameters by hand, the model card's "80B" total; no
// exact published count or index total was found (searched: that count,
// its bytes, "Hunyuan-A13B-Instruct total_size"), and the stored material
// does not show whether the published files hold a tied lm_head copy or
// the router in float32: by hand only. By hand: the embedding 128,167 x
// 4096 = 524,972,032; a layer's q and o 2 x 4096^2, k and v 2 x 1024 x
// 4096, query_layernorm and key_layernorm 2 x 128, two norms 8192, the
// router 64 x 4096 = 262,144 (float32, 4 B each), the shared expert 3 x
// 3072 x 4096 = 37,748,736, 64 experts of 3 x 3072 x 4096: 2,495,881,472,
// x 32 = 79,868,207,104; the final norm 4096. At one rank vLLM
// (hunyuan_v1.py at d18bb7b) holds the router in the model's dtype, pads
// the 128,167 rows to 128,192 (25 x 4096 more) and keeps the dynamic-NTK
// rotary table of 32,768 positions x 128 x 2 B; the checkpoint and the
// config agree rank by rank and with the experts split over 8 ranks.
func TestHunyuanA13BHeader(t *testing.T) {
	_, ts := hunyuanA13BHeader()
	checkHeaderNames(t, ts, 6530)
	const params, router = 524_972_032 + 32*2_495_881_472 + 4096, 32 * 262_144
	if got, want := headerTotal(ts), uint64(2*params+2*router); got != want || params != 80_393_183_232 {
		t.Errorf("header total %d B, by hand %d (%d parameters)", got, want, params)
	}
	checkByHand(t, []byHandCase{{
		name: "Hunyuan-A13B-Instruct", fixture: hunyuanA13BHeader,
		ranks: []byHandRank{{"TP1", tpRanks(1, 0), 2*(params+25*4096) + 32768*128*2, ""}},
	}})
	checkHeaderRanks(t, hunyuanA13BHeader)
	a, _ := attach(t, hunyuanA13BHeader)
	sh := Whole(a, 8, 2, a.Quant)
	sh.ExpertRanks = 8
	if c, w := sum(CheckpointWeights(a, sh)), sum(Weights(a, sh)); c != w {
		t.Errorf("TP8 EP8: checkpoint %d B, config %d B", c, w)
	}
}

// internLM3_8BHeader is internlm/internlm3-8b-instruct's checkpoint in
// Llama's names, as its remote modeling_internlm3.py names its modules
// (no biases: bias and qkv_bias false; the head untied), shapes from the
// corpus config: 48 layers of 4096 wide, 32 heads and 2 KV heads of 128,
// MLP 10,240, 128,512 tokens, bf16.
func internLM3_8BHeader() (string, []safetensors.Tensor) {
	return corpusConfig("internlm__internlm3-8b-instruct"), denseShape{
		layers: 48, h: 4096, q: 4096, kv: 256, inter: 10240, v: 128512,
		norms: []string{"input_layernorm", "post_attention_layernorm"},
	}.tensors()
}

// TestInternLM3_8BHeader: the checkpoint's 435 tensors (48 layers of 9,
// the embedding, the final norm and the head) hold 8,804,241,408
// parameters by hand; no published count or index total was found to hold
// them to (searched: that count and its bytes, "internlm3-8b-instruct
// total_size"), the model card says 8B. By hand: the embedding and the
// untied head 2 x 128,512 x 4096 = 1,052,770,304; a layer's q and o 2 x
// 4096^2, k and v 2 x 256 x 4096, the MLP 3 x 10,240 x 4096, two norms
// 8192: 161,488,896, x 48 = 7,751,467,008; the final norm 4096. 2 B each.
// At one rank vLLM (llama.py, as registry.py maps InternLM3ForCausalLM)
// holds beside them the dynamic-NTK rotary table of 32,768 positions x 128
// x 2 B (128,512 rows are a multiple of 64: no padding); the checkpoint and
// the config agree rank by rank.
func TestInternLM3_8BHeader(t *testing.T) {
	_, ts := internLM3_8BHeader()
	checkHeaderNames(t, ts, 435)
	const params = 1_052_770_304 + 48*161_488_896 + 4096
	if got, want := headerTotal(ts), uint64(2*params); got != want || params != 8_804_241_408 {
		t.Errorf("header total %d B, by hand %d (%d parameters)", got, want, params)
	}
	checkByHand(t, []byHandCase{{
		name: "internlm3-8b-instruct", fixture: internLM3_8BHeader,
		ranks: []byHandRank{{"TP1", tpRanks(1, 0), 2*params + 32768*128*2, ""}},
	}})
	checkHeaderRanks(t, internLM3_8BHeader)
}
