package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"membudget"
	"membudget/budget"
)

// maxConfigBytes bounds a config.json: the largest published ones (with
// long quantization ignore lists) are under 100 KiB.
const maxConfigBytes = 4 << 20

// readModel finds --model: an existing file, a directory with config.json,
// or a shipped config by its Hugging Face id (org/name, any case) or file
// name (org__name).
func readModel(arg string) (name string, data []byte, path string, err error) {
	if st, statErr := os.Stat(arg); statErr == nil {
		path = arg
		if st.IsDir() {
			path = filepath.Join(arg, "config.json")
		}
		dir, base := filepath.Split(path)
		if dir == "" {
			dir = "."
		}
		data, err = budget.ReadRegular(os.DirFS(dir), base, path, maxConfigBytes)
		if err != nil {
			return "", nil, "", fmt.Errorf("--model: %w", err)
		}
		return arg, data, path, nil
	}
	want := strings.ToLower(strings.ReplaceAll(arg, "/", "__"))
	for _, n := range membudget.ModelNames() {
		if strings.ToLower(n) == want {
			data, path, _ := membudget.ModelConfig(n)
			return strings.ReplaceAll(n, "__", "/"), data, path, nil
		}
	}
	hint := ""
	if near := budget.Nearest(strings.ReplaceAll(arg, "__", "/"), shippedModelIDs(), 3); len(near) > 0 {
		hint = "; did you mean " + strings.Join(near, " or ") + "?"
	}
	return "", nil, "", fmt.Errorf("--model %q: no such file and no shipped model of that name%s (shipped: %s)", arg, hint, strings.Join(shippedModelIDs(), ", "))
}

func shippedModelIDs() []string {
	var ids []string
	for _, n := range membudget.ModelNames() {
		ids = append(ids, strings.ReplaceAll(n, "__", "/"))
	}
	return ids
}
