// Package explain sets an engine's startup log beside membudget's
// prediction for the same serve, whatever the engine: it reads the log
// ([Read]), finds the device class the log's total memory stands for
// ([ChooseClass]), and holds the comparison every engine shares: the
// figures an engine predicts ([Spec], [Predicted]) set beside what the log
// states ([Rows]), the tolerances, the term that explains most of the gap
// ([Explanation.Tally]), and [Calibrate], which turns the log's device
// figures into a class file that --kernels reads. Each engine's package
// reads its own logs' settings, sizes the serve they describe under the
// release they logged and says what it predicts (membudget/engine's
// LogReader): this package knows no engine.
//
// Nothing is guessed: a setting the log does not state takes the engine's
// default and is shown as such, a model or class the log does not name is a
// [*MissingError] naming the flag that supplies it, and a class synthesized
// for a total that no class has says so.
//
// # Tolerances
//
// A figure is within its tolerance when |predicted - logged| is at most:
//
//   - weights: max(0.5 % of the logged figure, the log's rounding);
//   - every other memory term (activation peak, non-torch, the CUDA-graph
//     estimate and capture, requested memory, and the sums the log states:
//     weights + non-torch, the non-KV total, the torch peak): max(0.1 GiB,
//     the log's rounding), plus 0.5 % of the figure for the sums that hold
//     the weights;
//   - available KV memory and the KV memory one request needs: max(1 %,
//     the log's rounding);
//   - tokens, blocks, maximum concurrency, the estimated maximum model
//     length: max(2 %, the log's rounding).
//
// The 0.1 GiB, 0.5 %, 1 % and 2 % are membudget's gates against
// corpus/observed/vllm.csv (README, "Checked against vLLM itself"): what the
// model is held to on public logs. The log's rounding is half a unit of the
// last place the engine printed ([logs.Figure.Tolerance]).
//
// One check is exact: the blocks that the logged available KV memory holds,
// floor(memory / block bytes) over the memory's rounding range, must contain
// the logged block count. It tests the page arithmetic alone, independent of
// every modelled peak.
package explain
