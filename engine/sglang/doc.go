// Package sglang is SGLang's memory accounting, release by release: its
// server flags and defaults ([Serve], [Resolve]: --mem-fraction-static's
// default by device memory, the chunked-prefill and CUDA-graph tiers, the
// context length derived from the model's config, the attention backend's
// page size), the token-granular KV pool it sizes from the fraction
// ([Reference.Capacity]: max_total_num_tokens, the K and V sizes it logs,
// max_running_requests), and the footprint of a server as a budget.Plan.
//
// A [Profile] holds the rules of one SGLang release; [ProfileFor] maps a
// release name to one. The default profile is v0.5.6.post2 (commit
// 5c8bd8b51b53b9b39eb1edec582ee43b21002106); v0.4.9.post2 (commit
// eb118d88c47d95f0006506ea7abeb0bd51a780b5) is the era of the SGLang row of
// corpus/observed/vllm.csv. Every rule cites the file and line of
// sgl-project/sglang at the profile's commit, under python/sglang/srt/.
//
// SGLang's budget is --mem-fraction-static of F0, the memory free after
// distributed init: the weights and the KV pool must fit in it, and
// everything else (activations, CUDA graphs, the req_to_token table) in
// what it leaves. [Reference] is the plain, itemised footprint of one
// server per pipeline stage; [Reference.Plan] compiles it into a
// budget.Plan whose budget is msf x F0 and whose driver condition is
// SGLang's: (1 - msf) x F0 must hold everything outside the static pool.
package sglang
