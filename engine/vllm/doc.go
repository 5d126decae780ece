// Package vllm is vLLM's memory accounting, version by version: its serve
// flags and defaults ([Serve], [Resolve]), its KV cache layout (page sizes,
// KV cache groups, sliding windows, pipeline stages), the terms its profile
// run measures, how it reports the KV cache's capacity and whether it
// starts ([CapacityOf]), and the `vllm serve` command line ([Command]).
//
// A [Profile] holds the rules of one vLLM version; [ProfileFor] maps a
// release number to one. The default profile is vLLM's main branch at commit
// d18bb7b3908800f5e7f4c271de4eaf82d0f6f3e6 (2026-08-14).
//
// [Reference] is the plain, itemised footprint of one serve: every weight
// tensor, every KV tensor, every modelled peak, per pipeline stage. It is the
// oracle; [Reference.Plan] compiles the same footprint into the coefficients
// of a budget.Plan, and the properties prove the two equal.
package vllm
