package engine

import "membudget/model"

// ResolveDegree sets *v, one of a serve's parallel degrees under the
// engine's flag, to 1 when it was not given (0), the default of every engine
// membudget sizes, and records that with def(flag, why); a degree above most
// is a *[SettingError] naming the flag.
//
// It takes one degree rather than a list of them: a list would hold
// pointers into the caller's resolved serve beside the flag names handed to
// def, and Go's escape analysis, which does not tell a list's fields apart,
// would then move every resolved serve to the heap.
func ResolveDegree(flag string, v *uint64, most uint64, def func(flag, why string), why string) error {
	if *v == 0 {
		*v = 1
		def(flag, why)
	}
	if *v > most {
		return Refuse(flag, *v, "at most %d", most)
	}
	return nil
}

// ShardCites are an engine's sources for the tensor-parallel checks of
// [CheckHeads] and [CheckShards], each appended to its refusal (" (layers/
// linear.py:826)"); "" for none.
type ShardCites struct{ Heads, KVHeads, MLP string }

// CheckHeads refuses, under the engine's tensor-parallel flag, a tp that
// does not divide a's attention heads: QKVParallelLinear gives every rank
// an equal share of them, in vLLM and SGLang alike.
func CheckHeads(a *model.Arch, tp uint64, flag string, cite ShardCites) error {
	if a.Heads%tp != 0 {
		return Refuse(flag, tp, "does not divide the %d attention heads of %s%s", a.Heads, a.Source, cite.Heads)
	}
	return nil
}

// CheckShards refuses, under the engine's tensor-parallel flag, a tp the
// model's other linear layers cannot be sharded by: QKVParallelLinear
// divides the KV heads among the ranks, or replicates them when there are
// fewer heads than ranks (MLA has one latent, not KV heads); the column-
// and row-parallel MLPs divide their intermediate size, and the experts'
// too unless expertsWhole (expert parallelism holds each expert whole).
func CheckShards(a *model.Arch, tp uint64, flag string, expertsWhole bool, cite ShardCites) error {
	if !a.MLA && a.KVHeads%tp != 0 && tp%a.KVHeads != 0 {
		return Refuse(flag, tp, "neither divides nor is a multiple of the %d KV heads of %s%s", a.KVHeads, a.Source, cite.KVHeads)
	}
	for _, d := range []struct {
		key string
		v   uint64
	}{{"intermediate_size", a.Intermediate}, {"moe_intermediate_size", a.MoEIntermediate}} {
		if d.key == "moe_intermediate_size" && expertsWhole {
			continue
		}
		if d.v%tp != 0 {
			return Refuse(flag, tp, "does not divide %s %d of %s%s", d.key, d.v, a.Source, cite.MLP)
		}
	}
	return nil
}
