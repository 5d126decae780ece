// Package properties holds membudget's property tests and fuzz targets:
// rapid properties that prove the verified bisection correct on arbitrary
// monotone predicates, the compiled budget.Plan equal to model.Reference on
// generated architectures and serves, the queries equal to a brute-force
// scan, the arithmetic saturating, and the parses total (a value or an
// error, never a panic). The package has no non-test code beyond this file.
package properties
