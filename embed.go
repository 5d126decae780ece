// Package membudget holds the data that ships inside the membudget binary:
// the device classes under kernels/ and the real config.json files under
// corpus/models/. The code lives in budget/, model/ and cmd/membudget/.
package membudget

import (
	"embed"

	"membudget/budget"
)

//go:embed kernels/*/HARDWARE.toml
var kernelFiles embed.FS

// Kernels is the catalog of shipped device classes, read from the binary, so
// that the tool works from any directory.
func Kernels() budget.Catalog {
	return budget.Catalog{FS: kernelFiles, Dir: "kernels", Root: "kernels"}
}
