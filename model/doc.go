// Package model is membudget's reference footprint model: model
// architectures read from Hugging Face config.json, serve settings with
// vLLM's flag names and defaults, and the itemised allocation ledger of what
// vLLM's v1 engine allocates on one GPU — every weight tensor, every KV
// tensor, the profile run's peaks — with the caching allocator's rounding.
//
// The reference is the oracle: plain and slow. Compile derives the same
// footprint as the plain coefficients of a budget.Plan, whose Evaluate is
// O(1); the properties prove the two equal.
package model
