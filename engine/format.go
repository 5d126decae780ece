package engine

import (
	"fmt"
	"math"
)

// GiB renders bytes as GiB with two decimals, as the engines' logs do.
func GiB(b uint64) string {
	return fmt.Sprintf("%.2f GiB", float64(b)/(1<<30))
}

// GiBAndBytes renders bytes as GiB and exactly: "14.96 GiB (16060522496 B)".
func GiBAndBytes(b uint64) string {
	return fmt.Sprintf("%s (%d B)", GiB(b), b)
}

// PercentOver returns how far a is from b, in per cent of b, to four
// decimals; 0 when b is 0.
func PercentOver(a, b uint64) float64 {
	if b == 0 {
		return 0
	}
	return math.Round((float64(a)-float64(b))/float64(b)*1e6) / 1e4
}

// DifferenceWarnPercent is the difference between a checkpoint's weights
// and those derived from config.json above which the family's rules are
// taken to miss something: the two count the same tensors, so they agree
// to the byte for a checkpoint shaped as its config says.
const DifferenceWarnPercent = 1.0
