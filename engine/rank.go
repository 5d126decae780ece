package engine

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"membudget/budget"
)

// Prefer is what a plan ranks on once the cost and the nodes are equal
// (see [PlanSpace.Rank]).
type Prefer string

// The orders a plan can rank by: a serving engineer's default, and the
// three a user may ask for.
const (
	// PreferDefault ranks tensor parallelism within a node before pipeline
	// parallelism, the checkpoint's precision before online quantization (weights, then the KV cache),
	// a safety margin before tight rows, then the KV headroom.
	PreferDefault Prefer = ""
	// PreferLatency ranks, beside the default's keys, fewer replicas (and
	// so more tensor ranks each) first: a request's step is shortest when
	// its engine has the most ranks.
	PreferLatency Prefer = "latency"
	// PreferThroughput ranks the most sequences of the length the whole
	// deployment holds first.
	PreferThroughput Prefer = "throughput"
	// PreferHeadroom ranks the safety margin and the KV headroom right
	// after the cost and the nodes.
	PreferHeadroom Prefer = "headroom"
)

// ParsePrefer returns the order --prefer names.
func ParsePrefer(s string) (Prefer, error) {
	switch p := Prefer(s); p {
	case PreferLatency, PreferThroughput, PreferHeadroom:
		return p, nil
	case "", "default":
		return PreferDefault, nil
	}
	return "", fmt.Errorf("--prefer %q: want latency, throughput or headroom", s)
}

// DefaultGPUsPerNode is the GPUs of one node when the user names none: an
// HGX or DGX board of 8 (NVIDIA's DGX H100/H200/B200 and AMD's MI300X
// platform all hold 8 GPUs on one NVLink or Infinity Fabric switch).
const DefaultGPUsPerNode = 8

// DefaultMarginPercent is the safety margin a deployment should leave,
// in percent of its budget: vLLM's own profiling already keeps the driver's
// share outside the budget, and this keeps room inside it for what a
// model of the memory misses: membudget's available KV memory is off by
// 0.24 % on average over the observed vLLM 0.19 H100 rows, its KV blocks
// by 0.52 % at the 90th percentile (docs/vllm.md, "Against the observed
// table"), and two activation peaks of 27 miss by more than 0.1 GiB; 5 %
// (3.6 GiB of an H100's 72.85 GiB budget) is ten times the 90th
// percentile, the round figure issue 20 asks for.
const DefaultMarginPercent = 5

// PlanSpace is what a plan searches and how it ranks what it finds.
type PlanSpace struct {
	Classes []budget.Class
	// MaxGPUs bounds tensor x pipeline x data ranks.
	MaxGPUs uint64
	// GPUsPerNode is the GPUs of one node ([DefaultGPUsPerNode] when 0):
	// tensor ranks stay within a node, and a deployment's nodes follow.
	GPUsPerNode uint64
	// MaxNodes bounds the nodes a deployment takes (0: only MaxGPUs does).
	MaxNodes uint64
	Prefer   Prefer
	// MarginPercent is the share of its budget, in percent, a deployment
	// should leave unused at the need; one that leaves less is tight.
	MarginPercent float64
	// Prices is each class's price in USD per GPU-hour, by class name:
	// when any is given the cost ranks first, and a class without a price
	// ranks after every class with one.
	Prices map[string]float64
}

// Layout is one way to spread a serve over GPUs: tensor ranks, pipeline
// stages, data-parallel replicas.
type Layout struct{ TP, PP, DP uint64 }

// GPUs returns TP x PP x DP.
func (l Layout) GPUs() uint64 { return l.TP * l.PP * l.DP }

// gpusPerNode is sp's node size.
func (sp PlanSpace) gpusPerNode() uint64 {
	if sp.GPUsPerNode == 0 {
		return DefaultGPUsPerNode
	}
	return sp.GPUsPerNode
}

// Nodes returns the nodes the layout takes: an engine that fits a node
// shares it with as many replicas as the node holds; a larger engine
// (pipeline stages across nodes) takes whole nodes of its own.
func (sp PlanSpace) Nodes(l Layout) uint64 {
	n := sp.gpusPerNode()
	engine := l.TP * l.PP
	if engine <= n {
		perNode := n / engine
		return (l.DP + perNode - 1) / perNode
	}
	return l.DP * ((engine + n - 1) / n)
}

// Layouts returns every layout the space allows for a model of layers
// layers serving concurrency sequences: tensor ranks 1 to 16 within a
// node, pipeline stages 1 to 8 (no more than the layers), replicas 1 to 16
// (no more than the sequences), all powers of two, within MaxGPUs and
// MaxNodes.
func (sp PlanSpace) Layouts(layers int, concurrency uint64) []Layout {
	var out []Layout
	for _, tp := range []uint64{1, 2, 4, 8, 16} {
		for _, pp := range []uint64{1, 2, 4, 8} {
			for _, dp := range []uint64{1, 2, 4, 8, 16} {
				l := Layout{tp, pp, dp}
				if sp.allows(l) && pp <= uint64(layers) && dp <= concurrency {
					out = append(out, l)
				}
			}
		}
	}
	return out
}

// allows reports whether l is within the space's bounds.
func (sp PlanSpace) allows(l Layout) bool {
	return l.GPUs() <= sp.MaxGPUs && l.TP <= sp.gpusPerNode() && (sp.MaxNodes == 0 || sp.Nodes(l) <= sp.MaxNodes)
}

// Bounds says in words how the space bounds the layouts, for a plan's
// "searched" sentence.
func (sp PlanSpace) Bounds() string {
	s := fmt.Sprintf("up to %d GPUs, tensor ranks within a node of %d", sp.MaxGPUs, sp.gpusPerNode())
	if sp.MaxNodes > 0 {
		s += fmt.Sprintf(", at most %d node(s)", sp.MaxNodes)
	}
	return s
}

// Order says in words how [PlanSpace.Rank] orders the rows, for the
// plan's header.
func (sp PlanSpace) Order() string {
	first := "fewest GPUs"
	if len(sp.Prices) > 0 {
		first = "cheapest per hour (classes without a --price last)"
	}
	margin := fmt.Sprintf("a %v %% margin of the budget before tight rows", sp.MarginPercent)
	switch sp.Prefer {
	case PreferLatency:
		return first + ", then one node before several, fewest replicas (most tensor ranks each), tensor before pipeline ranks, the checkpoint's precision before online quantization (weights, then the KV cache), " + margin + ", most KV headroom"
	case PreferThroughput:
		return first + ", then one node before several, most sequences held in all, the checkpoint's precision before online quantization (weights, then the KV cache), " + margin + ", most KV headroom"
	case PreferHeadroom:
		return first + ", then one node before several, " + margin + ", most KV headroom, the checkpoint's precision before online quantization (weights, then the KV cache), tensor before pipeline ranks"
	}
	return first + ", then one node before several, tensor before pipeline ranks, the checkpoint's precision before online quantization (weights, then the KV cache), " + margin + ", most KV headroom"
}

// RankJSON is what ranking adds to a plan's JSON row; an engine's row
// embeds it.
type RankJSON struct {
	Nodes              uint64   `json:"nodes"`
	KVHeadroomBytes    uint64   `json:"kv_headroom_bytes"`
	MarginBytes        uint64   `json:"margin_bytes"`
	Tight              bool     `json:"tight"`
	OnlineQuantization bool     `json:"online_quantization"`
	KVQuantized        bool     `json:"kv_quantized"`
	USDPerHour         *float64 `json:"usd_per_hour,omitempty"`
}

// Rank returns the deployments within the space's bounds, ranked as a
// serving engineer would deploy them (see [PlanSpace.Order]): the cost
// (fewest GPUs, or the least USD per hour when priced), then the nodes
// (one before several), then the keys of the space's [Prefer]; the
// device's memory, least first, and the order given break what is left.
// Each row's Nodes, Margin, Tight and USDPerHour are set (in ds too), and its JSON's
// [RankJSON] where the JSON embeds one (see [Deployment.Rank]).
func (sp PlanSpace) Rank(ds []Deployment) []Deployment {
	// A row is large: the rows within bounds are set in place and sorted
	// by pointer, and copied once, in their rank.
	var ptrs []*Deployment
	for i := range ds {
		d := &ds[i]
		l := Layout{d.TP, d.PP, d.DP}
		if !sp.allows(l) {
			continue
		}
		d.Nodes = sp.Nodes(l)
		d.Margin = uint64(float64(d.BudgetBytes) * sp.MarginPercent / 100)
		d.Tight = d.KVHeadroom < d.Margin
		d.USDPerHour = nil
		if price, ok := sp.Prices[d.Class.Name]; ok {
			cost := price * float64(d.GPUs)
			d.USDPerHour = &cost
		}
		ptrs = append(ptrs, d)
	}
	priced := len(sp.Prices) > 0
	byCost := func(x, y *Deployment) int {
		if !priced {
			return cmp.Compare(x.GPUs, y.GPUs)
		}
		switch {
		case x.USDPerHour == nil && y.USDPerHour == nil:
			return cmp.Compare(x.GPUs, y.GPUs)
		case x.USDPerHour == nil:
			return 1
		case y.USDPerHour == nil:
			return -1
		}
		return cmp.Or(cmp.Compare(*x.USDPerHour, *y.USDPerHour), cmp.Compare(x.GPUs, y.GPUs))
	}
	nodes := func(x, y *Deployment) int {
		return cmp.Or(cmp.Compare(x.Nodes, y.Nodes), cmp.Compare(x.engineNodes(sp), y.engineNodes(sp)))
	}
	pipeline := func(x, y *Deployment) int { return cmp.Compare(x.PP, y.PP) }
	precision := func(x, y *Deployment) int {
		return cmp.Or(BoolOrder(x.Online, y.Online), BoolOrder(x.KVQuantized, y.KVQuantized))
	}
	margin := func(x, y *Deployment) int { return BoolOrder(x.Tight, y.Tight) }
	headroom := func(x, y *Deployment) int { return cmp.Compare(y.KVHeadroom, x.KVHeadroom) }
	replicas := func(x, y *Deployment) int { return cmp.Compare(x.DP, y.DP) }
	held := func(x, y *Deployment) int {
		return cmp.Compare(budget.SatMul(y.MostSeqs.Value, y.DP), budget.SatMul(x.MostSeqs.Value, x.DP))
	}
	var keys []func(x, y *Deployment) int
	switch sp.Prefer {
	case PreferLatency:
		keys = []func(x, y *Deployment) int{byCost, nodes, replicas, pipeline, precision, margin, headroom}
	case PreferThroughput:
		keys = []func(x, y *Deployment) int{byCost, nodes, held, precision, margin, pipeline, headroom}
	case PreferHeadroom:
		keys = []func(x, y *Deployment) int{byCost, nodes, margin, headroom, precision, pipeline}
	default:
		keys = []func(x, y *Deployment) int{byCost, nodes, pipeline, precision, margin, headroom}
	}
	slices.SortStableFunc(ptrs, func(x, y *Deployment) int {
		for _, k := range keys {
			if c := k(x, y); c != 0 {
				return c
			}
		}
		return cmp.Compare(x.Class.Device.MemoryBytes, y.Class.Device.MemoryBytes)
	})
	ranked := make([]Deployment, len(ptrs))
	for i, d := range ptrs {
		ranked[i] = *d
		if rj, ok := d.JSON.(interface{ SetRank(RankJSON) }); ok {
			rj.SetRank(d.RankJSON())
		}
	}
	return ranked
}

// engineNodes is the nodes one replica of d spans.
func (d *Deployment) engineNodes(sp PlanSpace) uint64 {
	n := sp.gpusPerNode()
	return (d.TP*d.PP + n - 1) / n
}

// BoolOrder returns a cmp.Compare-style order of two flags: false before
// true (a plan's rank and an advice's order both prefer the row that does
// not change a thing).
func BoolOrder(x, y bool) int {
	switch {
	case x == y:
		return 0
	case !x:
		return -1
	}
	return 1
}

// RankJSON returns what ranking set on d, as a plan's JSON row holds it.
func (d Deployment) RankJSON() RankJSON {
	return RankJSON{Nodes: d.Nodes, KVHeadroomBytes: d.KVHeadroom, MarginBytes: d.Margin, Tight: d.Tight,
		OnlineQuantization: d.Online, KVQuantized: d.KVQuantized, USDPerHour: d.USDPerHour}
}

// ParsePrice reads one --price CLASS=USD_PER_HOUR: a class name and its
// price per GPU-hour, a finite number of at least 0. Its error leaves the
// flag to the flag package, which names it.
func ParsePrice(s string) (class string, usd float64, err error) {
	name, v, ok := strings.Cut(s, "=")
	name = strings.TrimSpace(name)
	if !ok || name == "" {
		return "", 0, fmt.Errorf("%q: want CLASS=USD_PER_HOUR, such as h100-sxm-80g=2.49", s)
	}
	usd, err = strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil || usd < 0 || usd != usd || usd > 1e6 {
		return "", 0, fmt.Errorf("%q: want CLASS=USD_PER_HOUR, a price per GPU-hour from 0 to 1000000 USD", s)
	}
	return name, usd, nil
}
