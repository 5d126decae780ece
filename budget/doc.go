// Package budget is membudget's core: a device class's memory terms (the
// [memory] table of kernels/<class>/HARDWARE.toml), the util budget, the
// verified bisection, and the compiled O(1) footprint evaluator (Plan) that the
// inverse queries run over.
//
// It is a port of the seed module budget.rs with its behaviour kept exactly:
// the driver's share is fixed + budget/1000*perMille + slack (divide first,
// saturating), the util budget is float64(device)*util truncated as the
// engine computes it, and LargestFitting is the seed's bisection. The package
// knows nothing about transformers: model.Compile turns an architecture into
// the plain coefficients of a Plan.
package budget
