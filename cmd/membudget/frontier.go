package main

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"text/tabwriter"

	"membudget/budget"
)

// frontierPoint is one length of the frontier and the most sequences that
// fit there.
type frontierPoint struct {
	Length  uint64 `json:"length"`
	MaxSeqs uint64 `json:"max_seqs"`
	Fits    bool   `json:"fits"`
	Capped  bool   `json:"capped"`
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

func runFrontier(stdout, stderr io.Writer, args []string) int {
	fs := newFlags("frontier", stderr)
	var f serveFlags
	if err := f.registerFor(fs, args); err != nil {
		return fail(stderr, "frontier", exitBadArgs, err)
	}
	format := fs.String("format", "text", "output: text, csv or json")
	svgPath := fs.String("svg", "", "also write the curve as an SVG plot to `FILE`")
	if status, ok := f.parseServe(fs, args); !ok {
		return status
	}
	if *format != "text" && *format != "csv" && *format != "json" {
		return fail(stderr, "frontier", exitBadArgs, fmt.Errorf("--format %q: want text, csv or json", *format))
	}
	if f.json {
		if f.given["format"] && *format != "json" {
			return fail(stderr, "frontier", exitBadArgs, fmt.Errorf("--json and --format %s disagree: give one of them", *format))
		}
		*format = "json"
	}
	fr, err := f.frontierServe(stderr)
	if err != nil {
		return fail(stderr, "frontier", exitBadArgs, err)
	}
	grid := frontierGrid(fr.lo, fr.hi)
	if len(grid) == 0 {
		return fail(stderr, "frontier", exitBadArgs, fmt.Errorf("%s %d: below the %s %d, the frontier's first length: nothing to plot", fr.hiFlag, fr.hi, fr.loName, fr.lo))
	}
	var points []frontierPoint
	for _, length := range grid {
		ans, err := budget.MaxSequences(fr.plan, length, fr.cap)
		if err != nil {
			return fail(stderr, "frontier", exitBadArgs, fmt.Errorf("length %d: %w", length, err))
		}
		// SGLang that does not start serves nothing.
		fits := ans.Fits && fr.starts
		points = append(points, frontierPoint{Length: length, MaxSeqs: ans.Value, Fits: fits, Capped: ans.Capped && fits})
		if !fits {
			points[len(points)-1].MaxSeqs = 0
		}
	}
	if *svgPath != "" {
		if err := os.WriteFile(*svgPath, []byte(frontierSVG(fr.title, points, fr.cap, fr.capLabel)), 0o644); err != nil {
			return fail(stderr, "frontier", exitBadArgs, fmt.Errorf("--svg: %w", err))
		}
	}
	switch *format {
	case "json":
		err = writeJSON(stdout, points)
	case "csv":
		w := csv.NewWriter(stdout)
		_ = w.Write([]string{"length", "max_seqs", "fits", "capped"})
		for _, p := range points {
			_ = w.Write([]string{strconv.FormatUint(p.Length, 10), strconv.FormatUint(p.MaxSeqs, 10), strconv.FormatBool(p.Fits), strconv.FormatBool(p.Capped)})
		}
		w.Flush()
		err = w.Error()
	default:
		fmt.Fprint(stdout, fr.header)
		if !fr.starts {
			fmt.Fprintf(stdout, "nothing fits: %s\n", fr.refusal)
		}
		tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "LENGTH\tMAX SEQS\t\t")
		for _, p := range points {
			note := ""
			switch {
			case p.Capped:
				note = "capped by " + fr.capLabel
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
	if !fr.starts {
		return exitNoFit // the engine refuses the serve: nothing fits at any length
	}
	return exitOK
}

// frontierInput is what the frontier needs of a loaded serve, whatever its
// engine.
type frontierInput struct {
	plan *budget.Plan
	// lo and hi are the grid's first and last lengths: the block (page)
	// size and the serve's longest length, hiFlag's value.
	lo, hi          uint64
	loName, hiFlag  string
	cap             uint64
	capLabel, title string
	// header is the text output's first lines: the serve and its command.
	header string
	// starts is false when the engine does not start at all; refusal
	// then says why, in the engine's words.
	starts  bool
	refusal string
}

// frontierServe loads the serve f describes under its engine, with the
// warnings on stderr.
func (f *serveFlags) frontierServe(stderr io.Writer) (frontierInput, error) {
	if f.engine == engineSGLang {
		sz, err := f.loadSGLang(stderr, "frontier")
		if err != nil {
			return frontierInput{}, err
		}
		r, c := sz.ref.Serve, sz.ref.Capacity()
		return frontierInput{plan: sz.plan, lo: c.PageSize, hi: r.ContextLength, loName: "page size", hiFlag: "--context-length",
			cap: sz.plan.MaxSeqs, capLabel: "max_running_requests",
			title:  fmt.Sprintf("%s on %s, SGLang mem_fraction_static %v", sz.modelName, sz.class.Name, r.MemFractionStatic),
			header: fmt.Sprintf("%s on %s, sized as %s\n%s\n", sz.modelName, sz.class.Name, r.Profile.Describes, sglangCommand(sz.modelName, f.sg.revision, r, f.sg.s)),
			starts: c.Starts, refusal: "SGLang does not start: " + c.Failure}, nil
	}
	sz, err := f.load()
	if err != nil {
		return frontierInput{}, err
	}
	writeWarnings(stderr, "frontier", sz.warnings())
	r := sz.serve
	ref, err := sz.reference()
	if err != nil {
		return frontierInput{}, err
	}
	refusal := ref.Capacity().Refusal(r.MaxModelLen, r.MaxNumSeqs)
	return frontierInput{plan: sz.plan, lo: r.BlockSize, hi: r.MaxModelLen, loName: "block size", hiFlag: "--max-model-len",
		cap: r.MaxNumSeqs, capLabel: "--max-num-seqs",
		title:  fmt.Sprintf("%s on %s, --gpu-memory-utilization %v", sz.modelName, sz.class.Name, r.GPUMemoryUtilization),
		header: fmt.Sprintf("%s on %s, sized as %s\n%s\n", sz.modelName, sz.class.Name, r.Profile.Describes, settingsLine(sz.modelName, r)),
		starts: refusal == "", refusal: "vLLM does not start: " + refusal}, nil
}
