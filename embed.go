// Package membudget holds the data that ships inside the membudget binary:
// the device classes under kernels/ and the real config.json files under
// corpus/models/. The code lives in budget/, model/ and cmd/membudget/.
package membudget

import (
	"embed"
	"strings"

	"membudget/budget"
)

//go:embed kernels/*/HARDWARE.toml
var kernelFiles embed.FS

// Kernels is the catalog of shipped device classes, read from the binary, so
// that the tool works from any directory, with the devices that ship no
// class on purpose (absent.go) refused by their reason.
func Kernels() budget.Catalog {
	return budget.Catalog{FS: kernelFiles, Dir: "kernels", Root: "kernels", Absent: absentDevices}
}

//go:embed corpus/models/*.json
var modelFiles embed.FS

// ModelNames lists the shipped config.json files by name (the file name
// without .json, e.g. meta-llama__Llama-3.1-8B-Instruct), sorted.
func ModelNames() []string {
	entries, err := modelFiles.ReadDir("corpus/models")
	if err != nil {
		return nil
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		names = append(names, strings.TrimSuffix(e.Name(), ".json"))
	}
	return names
}

// ModelConfig returns a shipped config.json by name (see ModelNames) and the
// path errors should name it by; ok is false when there is no such model.
func ModelConfig(name string) (data []byte, path string, ok bool) {
	if name == "" || strings.ContainsAny(name, "/\\") || strings.HasPrefix(name, ".") {
		return nil, "", false
	}
	path = "corpus/models/" + name + ".json"
	data, err := modelFiles.ReadFile(path)
	return data, path, err == nil
}

//go:embed corpus/models/hf_quant_config/*.json
var quantFiles embed.FS

// ModelQuantConfig returns a shipped model's hf_quant_config.json (ModelOpt
// checkpoints whose config.json has no quantization_config keep their
// quantization there; model.WithHFQuantConfig reads it) and its path; ok is
// false when the model has none.
func ModelQuantConfig(name string) (data []byte, path string, ok bool) {
	if name == "" || strings.ContainsAny(name, "/\\") || strings.HasPrefix(name, ".") {
		return nil, "", false
	}
	path = "corpus/models/hf_quant_config/" + name + ".json"
	data, err := quantFiles.ReadFile(path)
	return data, path, err == nil
}

//go:embed corpus/models/processor
var processorFiles embed.FS

// ModelProcessor returns a shipped model's processor file, file being
// model.PreprocessorFile, model.VideoPreprocessorFile or
// model.ProcessorFile, and its path; ok is false when the model ships none
// (corpus/models/SOURCES.md says where each shipped one was read).
func ModelProcessor(name, file string) (data []byte, path string, ok bool) {
	if name == "" || strings.ContainsAny(name, "/\\") || strings.HasPrefix(name, ".") ||
		file != "preprocessor_config.json" && file != "video_preprocessor_config.json" && file != "processor_config.json" {
		return nil, "", false
	}
	path = "corpus/models/processor/" + name + "/" + file
	data, err := processorFiles.ReadFile(path)
	return data, path, err == nil
}
