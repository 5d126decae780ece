package engine

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"pgregory.net/rapid"

	"membudget/budget"
)

// row is a deployment of the ranking tests: a name (the JSON, which
// ranking keeps), a layout and the figures the ranking reads.
func row(name, class string, tp, pp, dp uint64, online bool, budgetGiB, kvHeadroomGiB, most uint64) Deployment {
	mem := map[string]uint64{"small": 80 << 30, "large": 141 << 30}[class]
	return Deployment{Class: budget.Class{Name: class, Device: budget.Device{MemoryBytes: mem}}, GPUs: tp * pp * dp, TP: tp, PP: pp, DP: dp,
		Online: online, BudgetBytes: budgetGiB << 30, KVHeadroom: kvHeadroomGiB << 30, MostSeqs: budget.Answer{Value: most, Fits: true}, JSON: name}
}

func names(ds []Deployment) []string {
	var out []string
	for _, d := range ds {
		out = append(out, d.JSON.(string))
	}
	return out
}

// TestRankOrders: the cases, each row built so that exactly one
// key tells it from the next.
func TestRankOrders(t *testing.T) {
	// Budgets of 100 GiB: a 5 % margin is 5 GiB of KV headroom.
	tp4 := row("tp4", "small", 4, 1, 1, false, 100, 10, 8)
	pp4 := row("pp4", "small", 1, 4, 1, false, 100, 40, 8) // more headroom, and still after tp4
	online := row("tp2-online", "small", 2, 1, 1, true, 100, 50, 30)
	ckpt := row("tp2-bf16", "small", 2, 1, 1, false, 20, 3, 6)    // 3 GiB of 20: 15 %, safe
	tight := row("tp2-tight", "small", 2, 1, 1, false, 100, 4, 5) // 4 GiB < the 5 GiB margin
	dp2 := row("tp1-dp2", "small", 1, 1, 2, false, 100, 8, 20)
	one := row("tp1", "large", 1, 1, 1, false, 100, 1, 2)
	// 16 GPUs on nodes of 8: tp8 x dp2 is two nodes; so is tp8 x pp2.
	tp8pp2 := row("tp8-pp2", "small", 8, 2, 1, false, 100, 30, 9)
	tp8dp2 := row("tp8-dp2", "small", 8, 1, 2, false, 100, 20, 9)
	all := []Deployment{tp8pp2, tp8dp2, pp4, tp4, tight, online, ckpt, dp2, one}
	cases := []struct {
		name string
		sp   PlanSpace
		want []string
	}{
		{
			// Fewest GPUs (tp1 on one GPU first); at 2 GPUs no pipeline in
			// any, so the checkpoint's precision (tp2-online last of the
			// four), then the margin (tp2-tight after the two that keep
			// it, though its 4 GiB are more than tp2-bf16's 3), then KV
			// headroom: tp1-dp2's 8 GiB before tp2-bf16's 3. At 4 GPUs, tp4 before pp4 despite
			// pp4's headroom. At 16, tp8-dp2's engines each hold one node
			// (two nodes in all, one a replica) before tp8-pp2's engine
			// that spans both.
			name: "default",
			sp:   PlanSpace{MaxGPUs: 64, MarginPercent: 5},
			want: []string{"tp1", "tp1-dp2", "tp2-bf16", "tp2-tight", "tp2-online", "tp4", "pp4", "tp8-dp2", "tp8-pp2"},
		},
		{
			// Latency: at 2 GPUs fewest replicas first, so every tp2 row
			// before tp1-dp2; among the tp2 rows as the default.
			name: "latency",
			sp:   PlanSpace{MaxGPUs: 64, MarginPercent: 5, Prefer: PreferLatency},
			want: []string{"tp1", "tp2-bf16", "tp2-tight", "tp2-online", "tp1-dp2", "tp4", "pp4", "tp8-dp2", "tp8-pp2"},
		},
		{
			// Throughput: most sequences held in all: tp2-online 30,
			// tp1-dp2 2 x 20 = 40, tp2-bf16 6, tp2-tight 5; tp4 and pp4
			// hold 8 each, tp4 first by its pipeline; tp8-dp2 holds 18.
			name: "throughput",
			sp:   PlanSpace{MaxGPUs: 64, MarginPercent: 5, Prefer: PreferThroughput},
			want: []string{"tp1", "tp1-dp2", "tp2-online", "tp2-bf16", "tp2-tight", "tp4", "pp4", "tp8-dp2", "tp8-pp2"},
		},
		{
			// Headroom: the margin, then the most KV headroom: at 2 GPUs
			// tp2-online (50) first; at 4, pp4 (40) before tp4 (10).
			name: "headroom",
			sp:   PlanSpace{MaxGPUs: 64, MarginPercent: 5, Prefer: PreferHeadroom},
			// At 16, the nodes still come first: tp8-dp2's engines each
			// within a node.
			want: []string{"tp1", "tp2-online", "tp1-dp2", "tp2-bf16", "tp2-tight", "pp4", "tp4", "tp8-dp2", "tp8-pp2"},
		},
		{
			// No margin: nothing is tight, so tp2-tight's 4 GiB of
			// headroom rank before tp2-bf16's 3.
			name: "margin 0",
			sp:   PlanSpace{MaxGPUs: 64},
			want: []string{"tp1", "tp1-dp2", "tp2-tight", "tp2-bf16", "tp2-online", "tp4", "pp4", "tp8-dp2", "tp8-pp2"},
		},
		{
			// Priced: a large GPU at 4 USD, a small at 1.5: tp1 on one
			// large costs 4, the 2-GPU rows 3, the 4-GPU rows 6, the
			// 16-GPU rows 24.
			name: "priced",
			sp:   PlanSpace{MaxGPUs: 64, MarginPercent: 5, Prices: map[string]float64{"large": 4, "small": 1.5}},
			want: []string{"tp1-dp2", "tp2-bf16", "tp2-tight", "tp2-online", "tp1", "tp4", "pp4", "tp8-dp2", "tp8-pp2"},
		},
		{
			// Only the large class priced: it ranks first, the unpriced
			// after it by GPUs.
			name: "priced in part",
			sp:   PlanSpace{MaxGPUs: 64, MarginPercent: 5, Prices: map[string]float64{"large": 4}},
			want: []string{"tp1", "tp1-dp2", "tp2-bf16", "tp2-tight", "tp2-online", "tp4", "pp4", "tp8-dp2", "tp8-pp2"},
		},
		{
			// Nodes of 4 GPUs: tp8 leaves the node, so both 16-GPU rows go;
			// at most one node drops nothing else.
			name: "nodes of 4, one node",
			sp:   PlanSpace{MaxGPUs: 64, MarginPercent: 5, GPUsPerNode: 4, MaxNodes: 1},
			want: []string{"tp1", "tp1-dp2", "tp2-bf16", "tp2-tight", "tp2-online", "tp4", "pp4"},
		},
		{
			// At most 8 GPUs and one node of 8.
			name: "max gpus",
			sp:   PlanSpace{MaxGPUs: 8, MarginPercent: 5, MaxNodes: 1},
			want: []string{"tp1", "tp1-dp2", "tp2-bf16", "tp2-tight", "tp2-online", "tp4", "pp4"},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := c.sp.Rank(all)
			if diff := cmp.Diff(c.want, names(got)); diff != "" {
				t.Errorf("order (-want +got):\n%s", diff)
			}
		})
	}
}

// TestRankFigures: the figures ranking sets on a row, by hand.
func TestRankFigures(t *testing.T) {
	d := row("r", "small", 2, 1, 3, true, 100, 4, 1)
	got := PlanSpace{MaxGPUs: 64, MarginPercent: 5, Prices: map[string]float64{"small": 2.5}}.Rank([]Deployment{d})
	if len(got) != 1 {
		t.Fatalf("%d rows, want 1", len(got))
	}
	usd := 15.0 // 6 GPUs x 2.5
	want := RankJSON{
		Nodes:              1,             // three replicas of 2 GPUs on one node of 8
		KVHeadroomBytes:    4 << 30,       // as given
		MarginBytes:        5 * (1 << 30), // 5 % of 100 GiB
		Tight:              true,          // 4 GiB < 5 GiB
		OnlineQuantization: true,
		USDPerHour:         &usd,
	}
	if diff := cmp.Diff(want, got[0].RankJSON()); diff != "" {
		t.Errorf("figures (-want +got):\n%s", diff)
	}
}

// TestNodes: the nodes a layout takes on nodes of 8, by hand.
func TestNodes(t *testing.T) {
	sp := PlanSpace{}
	cases := []struct {
		l    Layout
		want uint64
	}{
		{Layout{1, 1, 1}, 1},
		{Layout{1, 1, 8}, 1},  // eight replicas of one GPU fill one node
		{Layout{1, 1, 9}, 2},  // the ninth takes a second
		{Layout{4, 1, 3}, 2},  // two replicas of 4 a node
		{Layout{8, 2, 1}, 2},  // one engine of 16 spans two nodes
		{Layout{8, 2, 2}, 4},  // two such engines
		{Layout{16, 1, 1}, 2}, // tensor ranks across two nodes
		{Layout{2, 3, 1}, 1},  // 6 GPUs in one node
		{Layout{2, 3, 2}, 2},  // 6 + 6: one engine a node, none shares
	}
	for _, c := range cases {
		if got := sp.Nodes(c.l); got != c.want {
			t.Errorf("Nodes(%+v) = %d, want %d", c.l, got, c.want)
		}
	}
}

// TestLayouts: the bounds cut the powers of two as they say.
func TestLayouts(t *testing.T) {
	sp := PlanSpace{MaxGPUs: 4, GPUsPerNode: 2}
	got := sp.Layouts(2, 2)
	// tp 1 or 2 (the node), pp 1 or 2 (the layers), dp 1 or 2 (the
	// sequences), within 4 GPUs: every product but 2 x 2 x 2.
	want := []Layout{{1, 1, 1}, {1, 1, 2}, {1, 2, 1}, {1, 2, 2}, {2, 1, 1}, {2, 1, 2}, {2, 2, 1}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("layouts (-want +got):\n%s", diff)
	}
	if got := (PlanSpace{MaxGPUs: 64, MaxNodes: 1}).Layouts(80, 1); len(got) == 0 || got[len(got)-1] != (Layout{8, 1, 1}) {
		t.Errorf("one node of 8: largest layout %v, want tp 8", got[len(got)-1])
	}
}

// TestParsePreferAndPrice: what the flags take and how they refuse.
func TestParsePreferAndPrice(t *testing.T) {
	for _, s := range []string{"", "default", "latency", "throughput", "headroom"} {
		if _, err := ParsePrefer(s); err != nil {
			t.Errorf("ParsePrefer(%q): %v", s, err)
		}
	}
	if _, err := ParsePrefer("cost"); err == nil || !strings.Contains(err.Error(), "--prefer") {
		t.Errorf("ParsePrefer(cost): %v, want an error naming --prefer", err)
	}
	name, usd, err := ParsePrice("h100-sxm-80g=2.49")
	if err != nil || name != "h100-sxm-80g" || usd != 2.49 {
		t.Errorf("ParsePrice: %q %v %v", name, usd, err)
	}
	for _, bad := range []string{"h100", "=2", "h100=x", "h100=-1", "h100=NaN", "h100=Inf", "h100=1e7"} {
		if _, _, err := ParsePrice(bad); err == nil || !strings.Contains(err.Error(), "want CLASS=USD_PER_HOUR") {
			t.Errorf("ParsePrice(%q): %v, want an error naming the form", bad, err)
		}
	}
}

// TestOrderNamesEachKey: the header says what ranks the rows.
func TestOrderNamesEachKey(t *testing.T) {
	for _, p := range []Prefer{PreferDefault, PreferLatency, PreferThroughput, PreferHeadroom} {
		o := PlanSpace{MarginPercent: 5, Prefer: p}.Order()
		for _, want := range []string{"fewest GPUs", "one node before several", "5 % margin", "KV headroom", "online quantization"} {
			if !strings.Contains(o, want) {
				t.Errorf("%s: %q lacks %q", p, o, want)
			}
		}
	}
	if o := (PlanSpace{Prices: map[string]float64{"x": 1}}).Order(); !strings.HasPrefix(o, "cheapest per hour") {
		t.Errorf("priced: %q", o)
	}
}

// TestRankKVPrecision: at equal layout, the KV cache at the engine's auto
// ranks before an fp8 one with twice its headroom, both within the margin,
// by default; --prefer headroom takes the headroom.
func TestRankKVPrecision(t *testing.T) {
	auto := row("auto", "small", 2, 1, 1, false, 100, 10, 4)
	fp8 := row("fp8", "small", 2, 1, 1, false, 100, 20, 8)
	fp8.KVQuantized = true
	for _, c := range []struct {
		prefer Prefer
		want   []string
	}{
		{PreferDefault, []string{"auto", "fp8"}},
		{PreferLatency, []string{"auto", "fp8"}},
		{PreferThroughput, []string{"fp8", "auto"}}, // 8 sequences held before 4
		{PreferHeadroom, []string{"fp8", "auto"}},
	} {
		got := PlanSpace{MaxGPUs: 8, MarginPercent: 5, Prefer: c.prefer}.Rank([]Deployment{fp8, auto})
		if diff := cmp.Diff(c.want, names(got)); diff != "" {
			t.Errorf("%q (-want +got):\n%s", c.prefer, diff)
		}
	}
}

// TestRankKeepsTheRowsWithinBoundsInOrder: for random rows and spaces,
// Rank keeps exactly the rows within the space's bounds, each once, and
// orders them by the cost first (GPUs, or the price per hour with priced
// classes first), then the nodes.
func TestRankKeepsTheRowsWithinBoundsInOrder(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		pow := rapid.SampledFrom([]uint64{1, 2, 4, 8, 16})
		sp := PlanSpace{MaxGPUs: rapid.SampledFrom([]uint64{1, 8, 16, 64}).Draw(t, "max_gpus"),
			GPUsPerNode:   rapid.SampledFrom([]uint64{0, 2, 4, 8}).Draw(t, "gpus_per_node"),
			MaxNodes:      rapid.Uint64Range(0, 4).Draw(t, "max_nodes"),
			Prefer:        rapid.SampledFrom([]Prefer{PreferDefault, PreferLatency, PreferThroughput, PreferHeadroom}).Draw(t, "prefer"),
			MarginPercent: rapid.Float64Range(0, 20).Draw(t, "margin")}
		if rapid.Bool().Draw(t, "priced") {
			sp.Prices = map[string]float64{"small": rapid.Float64Range(0, 10).Draw(t, "small_usd")}
		}
		n := rapid.IntRange(0, 12).Draw(t, "rows")
		var rows []Deployment
		for i := range n {
			d := row(fmt.Sprint(i), rapid.SampledFrom([]string{"small", "large"}).Draw(t, "class"), pow.Draw(t, "tp"), pow.Draw(t, "pp"), pow.Draw(t, "dp"),
				rapid.Bool().Draw(t, "online"), rapid.Uint64Range(1, 200).Draw(t, "budget"), rapid.Uint64Range(0, 200).Draw(t, "headroom"), rapid.Uint64Range(0, 100).Draw(t, "most"))
			d.KVQuantized = rapid.Bool().Draw(t, "kv")
			rows = append(rows, d)
		}
		got := sp.Rank(rows)
		var want []string
		for _, d := range rows {
			if sp.allows(Layout{d.TP, d.PP, d.DP}) {
				want = append(want, d.JSON.(string))
			}
		}
		if diff := cmp.Diff(want, names(got), cmpopts.SortSlices(func(a, b string) bool { return a < b })); diff != "" {
			t.Fatalf("rows kept (-want +got):\n%s", diff)
		}
		for i := 1; i < len(got); i++ {
			x, y := got[i-1], got[i]
			cx, cy := float64(x.GPUs), float64(y.GPUs)
			if sp.Prices != nil {
				// Priced rows (by their cost) before unpriced ones (by GPUs).
				if (x.USDPerHour == nil) != (y.USDPerHour == nil) {
					if x.USDPerHour == nil {
						t.Fatalf("an unpriced row %s before a priced one %s", x.JSON, y.JSON)
					}
					continue
				}
				if x.USDPerHour != nil {
					cx, cy = *x.USDPerHour, *y.USDPerHour
				}
			}
			if cx > cy {
				t.Fatalf("row %s (cost %v) before %s (cost %v)", x.JSON, cx, y.JSON, cy)
			}
			if cx == cy && x.GPUs == y.GPUs && x.Nodes > y.Nodes {
				t.Fatalf("row %s (%d nodes) before %s (%d) at the same cost", x.JSON, x.Nodes, y.JSON, y.Nodes)
			}
			if y.Tight != (y.KVHeadroom < y.Margin) {
				t.Fatalf("row %s: tight %v with %d of headroom and a margin of %d", y.JSON, y.Tight, y.KVHeadroom, y.Margin)
			}
		}
	})
}
