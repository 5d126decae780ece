package check

import (
	"fmt"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"membudget/budget"
)

// The node labels that name a GPU.
const (
	// LabelProduct is set by NVIDIA's GPU feature discovery to the
	// device's NVML name with spaces replaced by "-"
	// ("NVIDIA-H100-80GB-HBM3", "Tesla-T4": NVIDIA/k8s-device-plugin
	// README, "Generated Labels").
	LabelProduct = "nvidia.com/gpu.product"
	// LabelGKE is GKE's accelerator label
	// (cloud.google.com/kubernetes-engine/docs/how-to/gpus).
	LabelGKE = "cloud.google.com/gke-accelerator"
	// LabelKarpenter is Karpenter's GPU name label on AWS
	// (karpenter.sh/docs/reference/instance-types, "karpenter.k8s.aws/instance-gpu-name").
	LabelKarpenter = "karpenter.k8s.aws/instance-gpu-name"
	// LabelInstanceType is the well-known instance type label
	// (kubernetes.io/docs/reference/labels-annotations-taints,
	// "node.kubernetes.io/instance-type").
	LabelInstanceType = "node.kubernetes.io/instance-type"
)

// gpuOf is a GPU class, and how many one node of an instance type holds (0
// when the label does not say).
type gpuOf struct {
	class   string
	perNode uint64
}

// gkeAccelerators maps GKE's accelerator label to a class, from GKE's own
// list of accelerator values (cloud.google.com/kubernetes-engine/docs/how-to/gpus,
// "Available GPUs": nvidia-tesla-t4, nvidia-l4, nvidia-tesla-a100 (40 GB),
// nvidia-a100-80gb, nvidia-h100-80gb, nvidia-h100-mega-80gb,
// nvidia-h200-141gb, nvidia-b200). nvidia-tesla-v100 has no row: GCP's
// V100s are 16 GB, which no class holds (v100-32g is the 32 GB part).
var gkeAccelerators = map[string]string{
	"nvidia-tesla-t4":       "tesla-t4",
	"nvidia-l4":             "l4",
	"nvidia-tesla-a100":     "a100-40g",
	"nvidia-a100-80gb":      "a100-80g",
	"nvidia-h100-80gb":      "h100-sxm-80g",
	"nvidia-h100-mega-80gb": "h100-sxm-80g",
	"nvidia-h200-141gb":     "h200",
	"nvidia-b200":           "b200",
}

// karpenterGPUs maps Karpenter's instance-gpu-name (the lower-case GPU
// name of the EC2 instance type: karpenter.sh/docs/reference/instance-types)
// to a class, where the name alone says which: "a100" does not (p4d's are
// 40 GB, p4de's 80 GB: see instanceTypes), nor "v100" (p3's are 16 GB,
// which no class holds).
var karpenterGPUs = map[string]string{
	"t4":   "tesla-t4",
	"a10g": "a10g",
	"l4":   "l4",
	"l40s": "l40s",
	"h100": "h100-sxm-80g",
	"h200": "h200",
	"b200": "b200",
}

// instanceTypes maps cloud instance types to their GPUs, each row from
// the cloud's own page of the type:
//
//   - AWS p4d/p4de: aws.amazon.com/ec2/instance-types/p4/ (p4d.24xlarge:
//     8 A100 40 GB; p4de.24xlarge: 8 A100 80 GB)
//   - AWS p5/p5e/p5en: aws.amazon.com/ec2/instance-types/p5/ (p5.48xlarge:
//     8 H100 80 GB; p5e/p5en.48xlarge: 8 H200)
//   - AWS g5: aws.amazon.com/ec2/instance-types/g5/ (A10G: 1 up to
//     16xlarge, 4 in 12xlarge and 24xlarge, 8 in 48xlarge)
//   - AWS g6: aws.amazon.com/ec2/instance-types/g6/ (L4, the same counts)
//   - AWS g6e: aws.amazon.com/ec2/instance-types/g6e/ (L40S, the same
//     counts)
//   - GCP a2: cloud.google.com/compute/docs/gpus#a100-gpus (a2-highgpu-Ng
//     and a2-megagpu-16g: A100 40 GB; a2-ultragpu-Ng: A100 80 GB)
//   - GCP a3: cloud.google.com/compute/docs/gpus#h100-gpus (a3-highgpu-Ng,
//     a3-megagpu-8g: H100 80 GB; a3-ultragpu-8g: H200)
//   - GCP g2: cloud.google.com/compute/docs/gpus#l4-gpus (g2-standard-4
//     to 32: 1 L4; 24: 2; 48: 4; 96: 8)
//   - Azure: learn.microsoft.com/azure/virtual-machines/sizes/gpu-accelerated/
//     (ND96isr_H100_v5: 8 H100; ND96isr_H200_v5: 8 H200; ND96asr_v4: 8 A100
//     40 GB; ND96amsr_A100_v4: 8 A100 80 GB; ND96isr_MI300X_v5: 8 MI300X)
var instanceTypes = map[string]gpuOf{
	"p4d.24xlarge":  {"a100-40g", 8},
	"p4de.24xlarge": {"a100-80g", 8},
	"p5.48xlarge":   {"h100-sxm-80g", 8},
	"p5e.48xlarge":  {"h200", 8},
	"p5en.48xlarge": {"h200", 8},

	"g5.xlarge": {"a10g", 1}, "g5.2xlarge": {"a10g", 1}, "g5.4xlarge": {"a10g", 1}, "g5.8xlarge": {"a10g", 1}, "g5.16xlarge": {"a10g", 1},
	"g5.12xlarge": {"a10g", 4}, "g5.24xlarge": {"a10g", 4}, "g5.48xlarge": {"a10g", 8},
	"g6.xlarge": {"l4", 1}, "g6.2xlarge": {"l4", 1}, "g6.4xlarge": {"l4", 1}, "g6.8xlarge": {"l4", 1}, "g6.16xlarge": {"l4", 1},
	"g6.12xlarge": {"l4", 4}, "g6.24xlarge": {"l4", 4}, "g6.48xlarge": {"l4", 8},
	"g6e.xlarge": {"l40s", 1}, "g6e.2xlarge": {"l40s", 1}, "g6e.4xlarge": {"l40s", 1}, "g6e.8xlarge": {"l40s", 1}, "g6e.16xlarge": {"l40s", 1},
	"g6e.12xlarge": {"l40s", 4}, "g6e.24xlarge": {"l40s", 4}, "g6e.48xlarge": {"l40s", 8},

	"a2-highgpu-1g": {"a100-40g", 1}, "a2-highgpu-2g": {"a100-40g", 2}, "a2-highgpu-4g": {"a100-40g", 4}, "a2-highgpu-8g": {"a100-40g", 8},
	"a2-megagpu-16g": {"a100-40g", 16},
	"a2-ultragpu-1g": {"a100-80g", 1}, "a2-ultragpu-2g": {"a100-80g", 2}, "a2-ultragpu-4g": {"a100-80g", 4}, "a2-ultragpu-8g": {"a100-80g", 8},
	"a3-highgpu-1g": {"h100-sxm-80g", 1}, "a3-highgpu-2g": {"h100-sxm-80g", 2}, "a3-highgpu-4g": {"h100-sxm-80g", 4}, "a3-highgpu-8g": {"h100-sxm-80g", 8},
	"a3-megagpu-8g": {"h100-sxm-80g", 8}, "a3-ultragpu-8g": {"h200", 8},
	"g2-standard-4": {"l4", 1}, "g2-standard-8": {"l4", 1}, "g2-standard-12": {"l4", 1}, "g2-standard-16": {"l4", 1}, "g2-standard-32": {"l4", 1},
	"g2-standard-24": {"l4", 2}, "g2-standard-48": {"l4", 4}, "g2-standard-96": {"l4", 8},

	"Standard_ND96isr_H100_v5":   {"h100-sxm-80g", 8},
	"Standard_ND96isr_H200_v5":   {"h200", 8},
	"Standard_ND96asr_v4":        {"a100-40g", 8},
	"Standard_ND96amsr_A100_v4":  {"a100-80g", 8},
	"Standard_ND96isr_MI300X_v5": {"mi300x", 8},
}

// labelClass returns the class a node label's value names: found is false
// when the label is not one that names a GPU; a value of such a label that
// names no class (or several) is an error.
func labelClass(key, value string, classes []budget.Class) (g gpuOf, found bool, err error) {
	switch key {
	case LabelProduct:
		var matches []string
		for _, c := range classes {
			if strings.ReplaceAll(c.Device.Name, " ", "-") == value {
				matches = append(matches, c.Name)
			}
		}
		switch len(matches) {
		case 1:
			return gpuOf{class: matches[0]}, true, nil
		case 0:
			return g, true, fmt.Errorf("%s=%s names no device class's GPU (see 'membudget classes'; or give --class)", key, value)
		default:
			return g, true, fmt.Errorf("%s=%s names the GPU of several classes (%s): give --class", key, value, strings.Join(matches, ", "))
		}
	case LabelGKE:
		c, ok := gkeAccelerators[value]
		if !ok {
			return g, true, fmt.Errorf("%s=%s is not a GKE accelerator membudget has a class for: give --class", key, value)
		}
		return gpuOf{class: c}, true, nil
	case LabelKarpenter:
		c, ok := karpenterGPUs[value]
		if !ok {
			return g, true, fmt.Errorf("%s=%s does not say which class (memory differs by instance type): select by %s, or give --class", key, value, LabelInstanceType)
		}
		return gpuOf{class: c}, true, nil
	case LabelInstanceType:
		gi, ok := instanceTypes[value]
		if !ok {
			return g, false, nil // a CPU instance, or one without a row: it names no GPU here
		}
		return gi, true, nil
	}
	return g, false, nil
}

// selectGPU reads the class a pod spec's nodeSelector and required node
// affinity select; nil when they select none. An affinity that admits
// several classes, or a label that names none, is returned as the
// server's error.
func selectGPU(spec *yaml.Node, classes []budget.Class) (*Selection, string) {
	var found []*Selection
	var errs []string
	add := func(key, value, how string, line int) {
		g, ok, err := labelClass(key, value, classes)
		switch {
		case err != nil:
			errs = append(errs, fmt.Sprintf("line %d: %v", line, err))
		case ok:
			found = append(found, &Selection{Class: g.class, PerNode: g.perNode, Line: line, From: fmt.Sprintf("%s %s=%s", how, key, value)})
		}
	}
	keys, values := pairs(get(spec, "nodeSelector"))
	for i, k := range keys {
		v, _ := scalar(values[i])
		add(k.Value, v, "nodeSelector", values[i].Line)
	}
	terms := path(spec, "affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms")
	for _, t := range items(terms) {
		for _, e := range items(get(t, "matchExpressions")) {
			key, _ := scalar(get(e, "key"))
			op, _ := scalar(get(e, "operator"))
			if op != "In" {
				continue
			}
			for _, v := range items(get(e, "values")) {
				add(key, v.Value, "node affinity", v.Line)
			}
		}
	}
	if len(errs) > 0 {
		return nil, errs[0]
	}
	if len(found) == 0 {
		return nil, ""
	}
	var names []string
	for _, s := range found {
		if !slices.Contains(names, s.Class) {
			names = append(names, s.Class)
		}
	}
	if len(names) > 1 {
		return nil, fmt.Sprintf("line %d: the node selection admits several GPU classes (%s): membudget sizes one; pin one, or give --class", found[0].Line, strings.Join(names, ", "))
	}
	// The selection that says the most: one with a count per node.
	best := found[0]
	for _, s := range found {
		if s.PerNode > best.PerNode {
			best = s
		}
	}
	return best, ""
}
