package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/google/go-cmp/cmp"
)

// chromium returns the path of a Chromium binary to drive, or "" when there
// is none: Debian's chromium (.ci/run installs it), or another by its
// usual name.
func chromium() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// cliJSON runs the command as a user would with --json and decodes its
// answer into v; it returns the exit status.
func cliJSON(t *testing.T, v any, args ...string) int {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := testApp().run(&stdout, &stderr, append(args[:1:1], append([]string{"--json"}, args[1:]...)...))
	if err := json.Unmarshal(stdout.Bytes(), v); err != nil {
		t.Fatalf("%v: exit %d, %v; stderr %s", args, code, err, stderr.String())
	}
	return code
}

// TestPageInChromium drives the page in headless Chromium against `membudget
// serve` on the loopback: it fills the form, and checks the ledger, the
// verdict, the KV capacity, the frontier and the plan table against the
// CLI's JSON for the same inputs, and an error against the CLI's message. A
// screenshot of a fit and of a no-fit is written to $TMPDIR.
func TestPageInChromium(t *testing.T) {
	bin := chromium()
	if bin == "" {
		t.Skip("no chromium binary on PATH (Debian: apt-get install chromium; .ci/run installs it): the page is not driven in a browser")
	}
	if testing.Short() {
		t.Skip("-short: the browser test starts Chromium")
	}
	url, _ := startServe(t, testApp())
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(bin),
		chromedp.Flag("headless", true),
		chromedp.Flag("no-sandbox", true),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 1600),
	)
	defer cancelAlloc()
	ctx, cancel := chromedp.NewContext(alloc)
	defer cancel()
	ctx, cancelTime := context.WithTimeout(ctx, 2*time.Minute)
	defer cancelTime()
	if err := chromedp.Do(ctx, chromedp.Navigate(url), chromedp.WaitReady(chromedp.CSS(`body[data-ready="true"]`))); err != nil {
		t.Fatalf("loading the page: %v", err)
	}

	for _, tc := range []struct {
		name, model, class, seqs, flags string
		wantFits                        bool
	}{
		// 3 sequences: vLLM main's V2 request state (0.16 GiB at the L4's
		// 256 sequences) leaves 3.87 of 8192 tokens, where 4 fitted before.
		{"fit", "Qwen/Qwen3-8B", "l4", "3", "--max-model-len 8192", true},
		{"no-fit", "meta-llama/Llama-3.1-70B-Instruct", "l4", "", "", false},
	} {
		args := []string{"report", "--model", tc.model, "--class", tc.class}
		if tc.seqs != "" {
			args = append(args, "--seqs", tc.seqs)
		}
		args = append(args, strings.Fields(tc.flags)...)
		var want pageReport
		cliJSON(t, &want, args...)
		// The page asks for the frontier with the serve's flags, without
		// --seqs.
		var points []frontierPoint
		cliJSON(t, &points, append([]string{"frontier", "--model", tc.model, "--class", tc.class}, strings.Fields(tc.flags)...)...)

		err := chromedp.Do(ctx,
			fill(map[string]string{"model": tc.model, "class": tc.class, "seqs": tc.seqs, "flags": tc.flags}),
			chromedp.SetAttributeValue(chromedp.ID("frontier"), "data-state", ""),
			chromedp.Click(chromedp.ID("size")),
			chromedp.WaitReady(chromedp.CSS(`#frontier[data-state="done"]`)),
		)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		got, err := chromedp.Run(ctx, chromedp.Evaluate[pageState](pageStateJS))
		if err != nil {
			t.Fatalf("%s: reading the page: %v", tc.name, err)
		}
		fp := want.Footprint
		wantState := pageState{Fits: strconv.FormatBool(want.Fits), Total: u(fp.TotalBytes), Budget: u(fp.UtilBudgetBytes), Device: u(fp.DeviceBytes),
			KVTokens: u(want.KVCapacity.Tokens), Points: strconv.Itoa(len(points)), Segments: got.Segments, Advice: got.Advice, Error: ""}
		if diff := cmp.Diff(wantState, got); diff != "" {
			t.Errorf("%s: the page against the CLI's JSON (-cli +page):\n%s", tc.name, diff)
		}
		if want.Fits != tc.wantFits {
			t.Errorf("%s: the CLI says fits=%v; the case expects %v", tc.name, want.Fits, tc.wantFits)
		}
		// The bar's segments are the ledger's non-zero terms, to the byte.
		var sum uint64
		for _, b := range got.Segments {
			v, _ := strconv.ParseUint(b, 10, 64)
			sum += v
		}
		if sum != fp.TotalBytes || got.Segments["weights_bytes"] != u(fp.WeightsBytes) || got.Segments["kv_cache_bytes"] != u(fp.KVCacheBytes) {
			t.Errorf("%s: the bar's segments %v sum to %d; the CLI's total is %d, weights %d, KV %d", tc.name, got.Segments, sum, fp.TotalBytes, fp.WeightsBytes, fp.KVCacheBytes)
		}
		wantAdvice := 0
		if want.Advice != nil {
			wantAdvice = len(want.Advice.Suggestions) + len(want.Advice.Notes)
		}
		if got.Advice != wantAdvice || !want.Fits && wantAdvice == 0 {
			t.Errorf("%s: %d advice items on the page, %d in the CLI's JSON", tc.name, got.Advice, wantAdvice)
		}
		screenshot(t, ctx, "membudget-page-"+tc.name+"-*.png")
	}

	// The plan table: the CLI's deployments, in its order, with its commands.
	var plan struct {
		Deployments []struct {
			Class   string `json:"class"`
			Command string `json:"command"`
		} `json:"deployments"`
	}
	cliJSON(t, &plan, "plan", "--model", "meta-llama/Llama-3.1-70B-Instruct", "--length", "8192", "--concurrency", "16", "--classes", "l4,h100-sxm-80g", "--top", "3")
	err := chromedp.Do(ctx,
		fill(map[string]string{"plan-length": "8192", "plan-concurrency": "16", "plan-classes": "l4,h100-sxm-80g", "plan-top": "3"}),
		chromedp.Click(chromedp.ID("plan")),
		chromedp.WaitReady(chromedp.CSS(`#plan-table[data-state="done"]`)),
	)
	if err != nil {
		t.Fatalf("plan: %v", err)
	}
	gotRows, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("#plan-table tbody tr")].map(r => r.dataset.class + ": " + r.querySelector("td.cmd").textContent)`))
	if err != nil {
		t.Fatalf("plan: reading the table: %v", err)
	}
	var wantRows []string
	for _, d := range plan.Deployments {
		wantRows = append(wantRows, d.Class+": "+d.Command)
	}
	if diff := cmp.Diff(wantRows, gotRows); diff != "" || len(wantRows) == 0 {
		t.Errorf("the plan table against the CLI's (-cli +page):\n%s", diff)
	}

	// The explain box: a pasted log's figures, as many as the CLI's, and
	// its largest gap.
	log, err := os.ReadFile(logsDir + "vllm-0.19-v1-tp2-debug.log")
	if err != nil {
		t.Fatal(err)
	}
	var explained struct {
		Figures    []json.RawMessage `json:"figures"`
		LargestGap struct {
			Sentence string `json:"sentence"`
		} `json:"largest_gap"`
	}
	a := testApp()
	a.stdin = bytes.NewReader(log)
	var out bytes.Buffer
	a.run(&out, &bytes.Buffer{}, []string{"explain", "--json", "-"})
	if err := json.Unmarshal(out.Bytes(), &explained); err != nil {
		t.Fatal(err)
	}
	err = chromedp.Do(ctx,
		fill(map[string]string{"log": string(log), "model": "", "class": ""}),
		chromedp.Click(chromedp.ID("explain")),
		chromedp.WaitVisible(chromedp.ID("explain-result")),
	)
	if err != nil {
		t.Fatalf("explain: %v", err)
	}
	type explainShown struct {
		Rows int    `json:"rows"`
		Gap  string `json:"gap"`
	}
	shownExplain, err := chromedp.Run(ctx, chromedp.Evaluate[explainShown](`({rows: document.querySelectorAll("#explain-table tbody tr").length, gap: document.getElementById("explain-gap").textContent})`))
	if err != nil {
		t.Fatal(err)
	}
	wantExplain := explainShown{Rows: len(explained.Figures), Gap: "Largest gap: " + explained.LargestGap.Sentence}
	if diff := cmp.Diff(wantExplain, shownExplain); diff != "" || wantExplain.Rows == 0 {
		t.Errorf("explain: the page against the CLI's JSON (-cli +page):\n%s", diff)
	}

	// A bad input: the page shows the CLI's message.
	var stderr bytes.Buffer
	testApp().run(&bytes.Buffer{}, &stderr, []string{"report", "--json", "--model", "Qwen/Qwen3-8B", "--class", "tpu-v9"})
	err = chromedp.Do(ctx,
		fill(map[string]string{"model": "Qwen/Qwen3-8B", "seqs": "", "flags": "--class tpu-v9", "class": ""}),
		chromedp.Click(chromedp.ID("size")),
		chromedp.WaitReady(chromedp.CSS(`#result[data-state="error"]`)),
	)
	if err != nil {
		t.Fatalf("a bad class: %v", err)
	}
	shown, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById("size-error").textContent`))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(strings.TrimSpace(stderr.String()), shown); diff != "" {
		t.Errorf("a bad class: the page's message against the CLI's (-cli +page):\n%s", diff)
	}
}

// fill sets the page's inputs, by id, as a user types them: an empty
// string clears one.
func fill(values map[string]string) chromedp.Action[chromedp.Void] {
	b, _ := json.Marshal(values)
	read := chromedp.Evaluate[bool](`((f) => { for (const [id, v] of Object.entries(f)) document.getElementById(id).value = v; return true; })(` + string(b) + `)`)
	return func(ctx context.Context, t *chromedp.Target) (chromedp.Void, error) {
		_, err := read(ctx, t)
		return chromedp.Void{}, err
	}
}

// pageState is what the page shows of a report, read from its elements'
// data attributes.
type pageState struct {
	Fits     string            `json:"fits"`
	Total    string            `json:"total"`
	Budget   string            `json:"budget"`
	Device   string            `json:"device"`
	KVTokens string            `json:"kv_tokens"`
	Points   string            `json:"points"`
	Segments map[string]string `json:"segments"`
	Advice   int               `json:"advice"`
	Error    string            `json:"error"`
}

// pageStateJS reads a [pageState] from the page.
const pageStateJS = `(() => {
  const attr = (sel, name) => { const e = document.querySelector(sel); return e ? (e.getAttribute(name) || "") : "<none>"; };
  const segments = {};
  for (const s of document.querySelectorAll("#bar .seg")) segments[s.dataset.term] = s.dataset.bytes;
  return {
    fits: attr("#verdict", "data-fits"), total: attr("#ledger-total", "data-bytes"),
    budget: attr("#mark-budget", "data-bytes"), device: attr("#mark-device", "data-bytes"),
    kv_tokens: attr("#kv-tokens", "data-value"), points: attr("#frontier-plot", "data-points"),
    segments: segments, advice: document.querySelectorAll("#advice li").length,
    error: document.getElementById("size-error").textContent + document.getElementById("frontier-error").textContent,
  };
})()`

// pageReport is what the page shows of report's JSON.
type pageReport struct {
	Fits      bool `json:"fits"`
	Footprint struct {
		TotalBytes      uint64 `json:"total_bytes"`
		UtilBudgetBytes uint64 `json:"util_budget_bytes"`
		DeviceBytes     uint64 `json:"device_bytes"`
		WeightsBytes    uint64 `json:"weights_bytes"`
		KVCacheBytes    uint64 `json:"kv_cache_bytes"`
	} `json:"footprint"`
	KVCapacity struct {
		Tokens uint64 `json:"tokens"`
	} `json:"kv_capacity"`
	Advice *struct {
		Suggestions []json.RawMessage `json:"suggestions"`
		Notes       []string          `json:"notes"`
	} `json:"advice"`
}

func u(v uint64) string { return strconv.FormatUint(v, 10) }

// screenshot writes the page as it is to a new file in $TMPDIR, named by
// pattern, and logs where.
func screenshot(t *testing.T, ctx context.Context, pattern string) {
	t.Helper()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	f, err := os.CreateTemp("", pattern)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(png); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", f.Name())
}
