package model

import (
	"fmt"
	"testing"

	"membudget/model/safetensors"
)

// nemotronSuperHeader is nvidia/NVIDIA-Nemotron-3-Super-120B-A12B-BF16's
// checkpoint header without its MTP block, rebuilt in the names
// nemotronNanoHeader gives Nemotron-3-Nano (backbone.embeddings,
// backbone.layers.N.norm and mixer.*, backbone.norm_f, lm_head) with the
// two latent projections vLLM loads (nemotron_h.py:185-204 at d18bb7b,
// fc1_latent_proj and fc2_latent_proj) and the routed experts at the
// latent width; shapes from the corpus config. Every tensor bf16 but the
// routing biases: the Hub's safetensors metadata counts 20,992 float32
// parameters in all, 41 MoE blocks' 512 (corpus/models/SOURCES.md), so
// A_log and D are bf16 here, unlike Nano's fixture.
func nemotronSuperHeader() (string, []safetensors.Tensor) {
	const H, V, I, EI, SI, L, E = 4096, 131072, 8192, 2688, 5376, 1024, 512
	const pattern = "MEMEMEM*EMEMEMEM*EMEMEMEM*EMEMEMEMEM*EMEMEMEMEM*EMEMEMEMEM*EMEMEMEMEM*EMEMEMEM*EMEMEMEME"
	ts := []safetensors.Tensor{bf16("backbone.embeddings.weight", V, H), bf16("backbone.norm_f.weight", H), bf16("lm_head.weight", V, H)}
	for l, kind := range pattern {
		p := fmt.Sprintf("backbone.layers.%d.", l)
		m := p + "mixer."
		ts = append(ts, bf16(p+"norm.weight", H))
		switch kind {
		case 'M':
			ts = append(ts, bf16(m+"in_proj.weight", 2*I+2*8*128+128, H),
				bf16(m+"conv1d.weight", I+2*8*128, 1, 4), bf16(m+"conv1d.bias", I+2*8*128),
				bf16(m+"A_log", 128), bf16(m+"D", 128), bf16(m+"dt_bias", 128),
				bf16(m+"norm.weight", I), bf16(m+"out_proj.weight", H, I))
		case '*':
			ts = append(ts, bf16(m+"q_proj.weight", 4096, H), bf16(m+"k_proj.weight", 256, H),
				bf16(m+"v_proj.weight", 256, H), bf16(m+"o_proj.weight", H, 4096))
		case 'E':
			ts = append(ts, bf16(m+"gate.weight", E, H), typed("F32", m+"gate.e_score_correction_bias", E),
				bf16(m+"fc1_latent_proj.weight", L, H), bf16(m+"fc2_latent_proj.weight", H, L),
				bf16(m+"shared_experts.up_proj.weight", SI, H), bf16(m+"shared_experts.down_proj.weight", H, SI))
			for e := range E {
				x := fmt.Sprintf("%sexperts.%d.", m, e)
				ts = append(ts, bf16(x+"up_proj.weight", EI, L), bf16(x+"down_proj.weight", L, EI))
			}
		}
	}
	return corpusConfig("nvidia__NVIDIA-Nemotron-3-Super-120B-A12B-BF16"), ts
}

// TestNemotronSuperHeader: 3 top tensors, 88 norms, 8 a Mamba layer (40),
// 4 an attention layer (8) and 6 + 2 x 512 a MoE layer (40): 41,643
// tensors, holding 120,668,707,840 parameters
// (model/family_nemotron_h_test.go by hand: the Hub's 123,611,033,088
// less the MTP block's 2,942,324,736 bf16 and 512 float32), in bytes twice
// that and 2 B more for each routing bias value (40 x 512). Read by
// nemotron_h's rules they are what the config gives at one rank, where
// vLLM builds each router in float32 (40 x 4096 x 512 x 2 B more) and A
// from A_log in float32 (40 x 128 x 2 B more); the checkpoint and the
// config agree rank by rank and with the experts split over 8 ranks.
func TestNemotronSuperHeader(t *testing.T) {
	_, ts := nemotronSuperHeader()
	checkHeaderNames(t, ts, 41_643)
	const params = 120_668_707_840
	const ckpt = 2*params + 2*40*512
	if got := headerTotal(ts); got != ckpt {
		t.Errorf("header total %d B, by hand %d", got, uint64(ckpt))
	}
	checkByHand(t, []byHandCase{{
		name: "NVIDIA-Nemotron-3-Super-120B-A12B-BF16", fixture: nemotronSuperHeader,
		ranks: []byHandRank{
			{"TP1", tpRanks(1, 0), ckpt + 40*4096*512*2 + 40*128*2, ""},
			// model/family_nemotron_h_test.go's TP8 figure with the
			// router in float32.
			{"TP8", tpRanks(8, 0), 30_914_479_104 + 40*4096*512*2, ""},
			{"TP8 EP8", tpRanks(8, 8), 30_914_479_104 + 40*4096*512*2, ""},
		},
	}})
	checkHeaderRanks(t, nemotronSuperHeader)
}
