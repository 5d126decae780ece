// Package logs reads the startup logs of vLLM (the V0 engine of 0.2 to
// 0.10, the V1 engine of 0.6.4 onwards, up to 0.26) and SGLang: the engine,
// its version and era, the settings the log states, and every memory figure,
// each as logged, with its unit, its rounding, its line and the process that
// logged it.
//
// [Parse] reads a log line by line; [ParseQuote] reads the corpus's quotes,
// log lines joined by " / ". A line may carry any prefix (timestamps, "INFO
// 05-12 10:11:12 [gpu_worker.py:123]", "(EngineCore_DP0 pid=123)", ANSI
// colours, Windows paths, CRLF); each message is found anywhere in it, as
// often as it occurs. Text that matches no format is skipped, never guessed
// at: a figure whose unit is cut off, prose about a log, a table of figures
// and a plugin's own lines state nothing.
//
// # Formats
//
// formats.go lists each format with the engine source that prints it and
// the pull request that introduced or changed it. In short:
//
//   - weights: "Loading model weights took X GB|GiB" (0.4 onwards), "Model
//     loading took X GB|GiB [memory] and S seconds" (March 2025 onwards), V0's
//     "model weights take XGiB", V1's "weights memory: XGiB" and "Actual usage
//     is X GiB for weight", SGLang's "Load weight end. ... mem usage=X GB";
//   - the profile: V0 0.6.4's "Memory profiling results: key=value ...", V0
//     0.6.5-0.10's "total_gpu_memory (X) x gpu_memory_utilization (u) = Y /
//     model weights take ...; non_torch_memory takes ...; PyTorch activation
//     peak memory takes ...; the rest of the memory reserved for KV Cache is
//     ...", V1's "Memory profiling takes ... Total non KV cache memory ...;
//     torch peak memory increase ...; non-torch forward increase memory (or
//     total consumed) ...; weights memory ...", the debug lines of June 2025,
//     the XPU worker's "memory profiling run" lines, the startup summary "Free
//     memory on device (F/T GiB) on startup. Desired GPU memory utilization is
//     (u, Y GiB). Actual usage is ...";
//   - the KV cache: "Available KV cache memory", "GPU KV cache size: N
//     tokens", "# GPU blocks: N, # CPU blocks: M" (and "# CUDA blocks", "#
//     cuda blocks"), "num_gpu_blocks is: N", "Maximum concurrency for L
//     tokens per request: Rx", both max-model-len errors with the estimate,
//     SGLang's "KV Cache is allocated. #tokens: N, K size: X GB, V size: Y
//     GB" (or "KV size: X GB") and "max_total_num_tokens=N";
//   - CUDA graphs: "Estimated CUDA graph memory: X GiB total", "Graph
//     capturing finished in N secs, took X GiB", "CUDA graph pool memory: X
//     GiB (actual), Y GiB (estimated)", SGLang's "Capture cuda graph end. ...
//     mem usage=X GB", and the profiling notes that say whether the estimate
//     was charged to the KV budget ([Log.GraphBudget]);
//   - settings: "non-default args: {...}" (a Python dict), "Initializing a V1
//     LLM engine (vX) with config: key=value, ..." and its V0 and older
//     forms, SGLang's "server_args=ServerArgs(...)" and scheduler limits, and
//     the one-setting lines "Chunked prefill is enabled with
//     max_num_batched_tokens=N", "Using max model len N", "Setting attention
//     block size to N tokens";
//   - the version: the engine line's "(vX)", "vLLM API server version X",
//     "vLLM server version X", the logo's "version X".
//
// # Units
//
// A figure keeps the number as logged, as an exact [Decimal], and its unit:
// GiB and MiB as printed; "GB" where the printing code divides by 2^30 — vLLM
// V0 and V1 before #15807 (vllm/worker/model_runner.py: consumed_memory /
// float(2**30)) and SGLang (memory_pool.py: GB = 1024 * 1024 * 1024) — is
// [UnitGBGiB]; the XPU worker's "MB" (bytes / 1024**2) is [UnitMBMiB].
// [Figure.Bytes] converts to bytes and [Figure.Tolerance] is half a unit of
// the engine's rounding: vLLM prints GiB with "%.2f" or format_gib's
// round(x, 2), so "64.6 GiB" is 64.60 +- 0.005 GiB and "51.38 GiB" is
// +- 0.005 GiB, while "14.9595 GB" is +- 0.00005 GiB. Counts have no
// rounding; concurrency is "%.2fx".
//
// # Repeats, ranks and contradictions
//
// Every occurrence of a figure is kept in log order, with the process its
// line names ([Figure.Process]: "Worker_TP1", "VllmWorkerProcess", SGLang's
// "TP0"): tensor-parallel ranks each log their own weights, profile and KV
// memory, and a log may state one quantity in two lines that disagree
// ("Model loading took 4.26 GiB" beside "weights memory: 3.28GiB" under
// pipeline parallelism). [Log.All] returns them all and [Log.First] the first;
// nothing is averaged or chosen silently. Settings likewise: [Log.Setting]
// returns the last statement, the engine config's resolved value coming after
// the arguments.
//
// # Engine and era
//
// The engine is set when every line read belongs to one engine. The era is
// set only from evidence ([Log.EraEvidence]): a line only one era prints
// ("Initializing a V1 LLM engine", "GPU KV cache size", V0's profile lines,
// the block pair with CPU blocks), or a version before 0.6.4 (no V1 yet) or
// from 0.11.0 (no V0 any more). Evidence for both eras leaves the era unknown.
//
// # Errors and limits
//
// A parse fails only on a reading error or an input over
// [Limits.MaxInputBytes] ([InputTooLargeError]); lines over
// [Limits.MaxLineBytes] are skipped and counted. Every pattern runs in time
// linear in the line, and every scan advances, so no input hangs the reader.
package logs
