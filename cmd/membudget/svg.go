package main

import (
	"fmt"
	"html"
	"math"
	"strings"
)

// Plot geometry, in SVG user units.
const (
	svgWidth, svgHeight = 720, 440
	plotLeft, plotRight = 80, 690
	plotTop, plotBottom = 50, 370
)

// frontierSVG draws most sequences against length on log2 axes, with the
// sequence cap (capLabel: vLLM's --max-num-seqs, SGLang's
// max_running_requests) as a dashed line; lengths where nothing fits sit on
// the floor, marked with a cross.
func frontierSVG(title string, points []frontierPoint, maxSeqs uint64, capLabel string) string {
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n", svgWidth, svgHeight, svgWidth, svgHeight)
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	fmt.Fprintf(&b, `<text x="%d" y="24" font-size="14" text-anchor="middle">%s</text>`+"\n", svgWidth/2, html.EscapeString(title))
	if len(points) == 0 {
		b.WriteString("</svg>\n")
		return b.String()
	}
	xlo, xhi := math.Log2(float64(points[0].Length)), math.Log2(float64(points[len(points)-1].Length))
	if xhi <= xlo {
		xhi = xlo + 1
	}
	yhi := math.Log2(float64(max(maxSeqs, 2)))
	x := func(v uint64) float64 {
		return plotLeft + (math.Log2(float64(v))-xlo)/(xhi-xlo)*(plotRight-plotLeft)
	}
	// One sequence sits a step above the floor, where "nothing fits" goes.
	y := func(v uint64) float64 {
		if v == 0 {
			return plotBottom
		}
		return plotBottom - (math.Log2(float64(v))+1)/(yhi+1)*(plotBottom-plotTop)
	}
	// Axes, ticks at powers of two.
	fmt.Fprintf(&b, `<path d="M%d %d V%d H%d" stroke="black" fill="none"/>`+"\n", plotLeft, plotTop, plotBottom, plotRight)
	for e := math.Ceil(xlo); e <= math.Floor(xhi); e++ {
		v := uint64(math.Exp2(e))
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#ddd"/><text x="%.1f" y="%d" text-anchor="middle">%s</text>`+"\n",
			x(v), plotTop, x(v), plotBottom, x(v), plotBottom+16, humanCount(v))
	}
	for e := 0.0; e <= math.Floor(yhi); e++ {
		v := uint64(math.Exp2(e))
		fmt.Fprintf(&b, `<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#ddd"/><text x="%d" y="%.1f" text-anchor="end">%d</text>`+"\n",
			plotLeft, y(v), plotRight, y(v), plotLeft-6, y(v)+4, v)
	}
	fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="middle">tokens per sequence (log scale)</text>`+"\n", (plotLeft+plotRight)/2, plotBottom+40)
	fmt.Fprintf(&b, `<text transform="translate(24 %d) rotate(-90)" text-anchor="middle">most sequences that fit (log scale)</text>`+"\n", (plotTop+plotBottom)/2)
	fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="end" fill="#d62728">× none</text>`+"\n", plotLeft-6, plotBottom+4)
	// The cap.
	fmt.Fprintf(&b, `<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#888" stroke-dasharray="6 4"/><text x="%d" y="%.1f" text-anchor="end" fill="#555">%s %d</text>`+"\n",
		plotLeft, y(maxSeqs), plotRight, y(maxSeqs), plotRight, y(maxSeqs)-6, capLabel, maxSeqs)
	// The curve.
	var path []string
	for _, p := range points {
		if p.Fits {
			path = append(path, fmt.Sprintf("%.1f,%.1f", x(p.Length), y(p.MaxSeqs)))
		}
	}
	fmt.Fprintf(&b, `<polyline points="%s" fill="none" stroke="#1f77b4" stroke-width="2"/>`+"\n", strings.Join(path, " "))
	for _, p := range points {
		if p.Fits {
			fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="3" fill="#1f77b4"><title>%d tokens: %d sequences</title></circle>`+"\n", x(p.Length), y(p.MaxSeqs), p.Length, p.MaxSeqs)
		} else {
			fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="middle" fill="#d62728">×<title>%d tokens: nothing fits</title></text>`+"\n", x(p.Length), float64(plotBottom)-3, p.Length)
		}
	}
	b.WriteString("</svg>\n")
	return b.String()
}

// humanCount renders a power of two compactly: 512, 4k, 128k, 1M.
func humanCount(v uint64) string {
	switch {
	case v >= 1<<20 && v%(1<<20) == 0:
		return fmt.Sprintf("%dM", v>>20)
	case v >= 1<<10 && v%(1<<10) == 0:
		return fmt.Sprintf("%dk", v>>10)
	}
	return fmt.Sprint(v)
}
