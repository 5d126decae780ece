package main

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"strconv"
	"text/tabwriter"

	"membudget/budget"
	"membudget/engine"
)

// frontierPoint is one length of the frontier and the most sequences that
// fit there.
type frontierPoint struct {
	Length  uint64 `json:"length"`
	MaxSeqs uint64 `json:"max_seqs"`
	Fits    bool   `json:"fits"`
	Capped  bool   `json:"capped"`
	// capBy names the cap of a capped point: the serve's, or the batch's
	// for a serve bounded by it (engine.BatchBounder).
	capBy string
}

// pointsPerDoubling sets the frontier's grid density: four lengths per
// doubling, enough to show each step of the block-quantized curve's trend.
const pointsPerDoubling = 4

// frontierGrid is a log-spaced grid of lengths from lo to hi (both
// included), pointsPerDoubling per doubling, without repeats.
func frontierGrid(lo, hi uint64) []uint64 {
	if lo == 0 {
		lo = 1
	}
	if hi < lo {
		return nil
	}
	var grid []uint64
	for i := 0; ; i++ {
		v := uint64(math.Round(float64(lo) * math.Pow(2, float64(i)/pointsPerDoubling)))
		if v >= hi || i > 64*pointsPerDoubling {
			break
		}
		if len(grid) == 0 || v > grid[len(grid)-1] {
			grid = append(grid, v)
		}
	}
	return append(grid, hi)
}

func (a *app) frontier(stdout, stderr io.Writer, args []string) int {
	fs := newFlags("frontier", stderr)
	var format, svgPath *string
	sa, err := a.serveFlags(fs, args, func(engine.Engine) {
		format = fs.String("format", "text", "output: text, csv or json")
		svgPath = fs.String("svg", "", "also write the curve as an SVG plot to `FILE`")
	})
	if err != nil {
		return fail(stderr, "frontier", exitBadArgs, err)
	}
	if status, ok := a.parseServe(fs, sa); !ok {
		return status
	}
	if *format != "text" && *format != "csv" && *format != "json" {
		return fail(stderr, "frontier", exitBadArgs, fmt.Errorf("--format %q: want text, csv or json", *format))
	}
	if sa.json {
		if sa.given["format"] && *format != "json" {
			return fail(stderr, "frontier", exitBadArgs, fmt.Errorf("--json and --format %s disagree: give one of them", *format))
		}
		*format = "json"
	}
	warn := func(w []string) { writeWarnings(stderr, "frontier", w) }
	m, c, sz, err := a.size(sa, warn)
	if err != nil {
		return fail(stderr, "frontier", exitBadArgs, err)
	}
	plan, sec := sz.Plan(), sz.Section()
	warn(sec.Warnings(0))
	page, longest, seqsCap := sz.Page(), sz.Len(), sz.Seqs()
	grid := frontierGrid(page.Value, longest.Value)
	if len(grid) == 0 {
		return fail(stderr, "frontier", exitBadArgs, fmt.Errorf("%s %d: below the %s %d, the frontier's first length: nothing to plot", longest.Flag, longest.Value, page.Label(), page.Value))
	}
	starts, why := sz.Starts()
	var points []frontierPoint
	for _, length := range grid {
		capAt := seqsCapAt(sz, length)
		ans, err := budget.MaxSequences(plan, length, capAt.Value)
		if err != nil {
			status, err := queryFailure(fmt.Sprintf("length %d", length), err)
			return fail(stderr, "frontier", status, err)
		}
		// An engine that does not start serves nothing.
		fits := ans.Fits && starts
		points = append(points, frontierPoint{Length: length, MaxSeqs: ans.Value, Fits: fits, Capped: ans.Capped && fits, capBy: capAt.Label()})
		if !fits {
			points[len(points)-1].MaxSeqs = 0
		}
	}
	if *svgPath != "" {
		title := fmt.Sprintf("%s on %s, %s", m.Name, c.Name, sec.Setting())
		if err := a.writeFile(*svgPath, []byte(frontierSVG(title, points, seqsCap.Value, seqsCap.Label()))); err != nil {
			return fail(stderr, "frontier", exitBadArgs, fmt.Errorf("--svg: %w", err))
		}
	}
	switch *format {
	case "json":
		err = a.writeNoticed(stdout, m.Arch.Notice(), "frontier", points)
	case "csv":
		if n := m.Arch.Notice(); n != "" {
			fmt.Fprintf(stdout, "# %s\n", n)
		}
		w := csv.NewWriter(stdout)
		_ = w.Write([]string{"length", "max_seqs", "fits", "capped"})
		for _, p := range points {
			_ = w.Write([]string{strconv.FormatUint(p.Length, 10), strconv.FormatUint(p.MaxSeqs, 10), strconv.FormatBool(p.Fits), strconv.FormatBool(p.Capped)})
		}
		w.Flush()
		err = w.Error()
	default:
		describes, _ := sec.Rules()
		writeNotice(stdout, m.Arch.Notice())
		fmt.Fprintf(stdout, "%s on %s, sized as %s\n%s\n", m.Name, c.Name, describes, sz.Command())
		if !starts {
			fmt.Fprintf(stdout, "nothing fits: %s does not start: %s\n", sa.eng.Title(), why)
		}
		tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "LENGTH\tMAX SEQS\t\t")
		for _, p := range points {
			note := ""
			switch {
			case p.Capped:
				note = "capped by " + p.capBy
			case !p.Fits:
				note = "nothing fits"
			}
			fmt.Fprintf(tw, "%d\t%d\t%s\t\n", p.Length, p.MaxSeqs, note)
		}
		err = tw.Flush()
	}
	if err != nil {
		return fail(stderr, "frontier", exitBadArgs, err)
	}
	if !starts {
		return exitNoFit // the engine refuses the serve: nothing fits at any length
	}
	return exitOK
}
