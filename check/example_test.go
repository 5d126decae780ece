package check_test

import (
	"fmt"

	"membudget"
	"membudget/check"
	"membudget/engines"
)

// ExampleRead finds the server a manifest launches: its launch line as the
// engine reads it, the class its node selector names and the GPUs it
// requests, each with its line. membudget check then sizes each over the
// engine seam.
func ExampleRead() {
	manifest := `apiVersion: apps/v1
kind: Deployment
metadata:
  name: qwen
spec:
  template:
    spec:
      nodeSelector:
        cloud.google.com/gke-accelerator: nvidia-l4
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.10.0
          args: [Qwen/Qwen3-4B, --max-model-len, "16384"]
          resources:
            limits:
              nvidia.com/gpu: 1
`
	classes, err := membudget.Kernels().LoadAll()
	if err != nil {
		panic(err)
	}
	engines := engines.Set()
	servers, err := check.Read("qwen.yaml", []byte(manifest), check.Options{
		IsLine:  func(args []string) bool { return engines.LineOf(args) != nil },
		Classes: classes,
	})
	if err != nil {
		panic(err)
	}
	for _, s := range servers {
		fmt.Printf("%s:%d: %s\n", s.File, s.Line, s.Where)
		fmt.Println(" ", s.Args)
		fmt.Printf("  class %s (%s, line %d); %d GPU(s) (%s, line %d)\n", s.GPU.Class, s.GPU.From, s.GPU.Line, s.Requested.GPUs, s.Requested.From, s.Requested.Line)
	}
	// Output:
	// qwen.yaml:13: Deployment/qwen, container vllm
	//   [vllm serve Qwen/Qwen3-4B --max-model-len 16384]
	//   class l4 (nodeSelector cloud.google.com/gke-accelerator=nvidia-l4, line 9); 1 GPU(s) (nvidia.com/gpu limit, line 16)
}
