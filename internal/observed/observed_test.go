package observed

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// write makes a corpus/observed directory of the three tables.
func write(t *testing.T, vllm, models, gpus string) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range map[string]string{"vllm.csv": vllm, "models.csv": models, "gpus.csv": gpus} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

const (
	rowsOK   = "id,model_hf_id,gpu_model,gpu_mem_util,quote\n1, org/a ,NVIDIA H100 NVL,\"0.93 (mem-fraction-static)\",x\n2,org/b,NVIDIA H100 80GB,\"131,072 (default)\",y\n"
	modelsOK = "logged_model,config,quantization,weights_modelled,note\norg/a,org__a,,yes,\norg/b,org__a,fp8,no,int8 as fp8\n"
	gpusOK   = "logged_gpu,class,note\nH100 NVL,,94 GB: no class\nH100,h100-sxm-80g,\n"
)

func TestRead(t *testing.T) {
	tables, err := Read(write(t, rowsOK, modelsOK, gpusOK))
	if err != nil {
		t.Fatal(err)
	}
	wantModels := map[string]Model{
		"org/a": {Config: "org__a", WeightsModelled: true},
		"org/b": {Config: "org__a", Quantization: "fp8", Note: "int8 as fp8"},
	}
	if diff := cmp.Diff(wantModels, tables.Models); diff != "" {
		t.Errorf("models (-want +got):\n%s", diff)
	}
	// Cells are trimmed; a number is read to its first non-digit, with
	// thousands separators.
	if got := tables.Rows[0]["model_hf_id"]; got != "org/a" {
		t.Errorf("model_hf_id %q, want org/a (trimmed)", got)
	}
	if v, ok := tables.Rows[0].Num("gpu_mem_util"); !ok || v != 0.93 {
		t.Errorf("Num(0.93 (mem-fraction-static)) = %v, %v", v, ok)
	}
	if got := tables.Rows[1].NumText("gpu_mem_util"); got != "131072" {
		t.Errorf("NumText(131,072 (default)) = %q", got)
	}
	if _, ok := tables.Rows[0].Num("quote"); ok {
		t.Error("Num of a cell without a number: ok")
	}
	// The first match wins: the NVL before the H100.
	for logged, want := range map[string]GPU{
		"NVIDIA H100 NVL":  {Substr: "H100 NVL", Note: "94 GB: no class"},
		"NVIDIA H100 80GB": {Substr: "H100", Class: "h100-sxm-80g"},
	} {
		if got, ok := tables.GPUOf(logged); !ok || got != want {
			t.Errorf("GPUOf(%q) = %+v, %v; want %+v", logged, got, ok, want)
		}
	}
	if _, ok := tables.GPUOf("Tesla T4"); ok {
		t.Error("GPUOf(Tesla T4): a match where no row names it")
	}
}

func TestReadRefuses(t *testing.T) {
	for _, c := range []struct{ name, rows, models, gpus, want string }{
		{"duplicate model", rowsOK, modelsOK + "org/a,org__c,,yes,\n", gpusOK, `row 4: logged_model "org/a" appears twice`},
		{"weights not yes or no", rowsOK, "logged_model,config,quantization,weights_modelled,note\norg/a,org__a,,true,\n", gpusOK, `row 2: weights_modelled "true": want yes or no`},
		{"no config", rowsOK, "logged_model,config,quantization,weights_modelled,note\norg/a,,,yes,\n", gpusOK, "row 2: config is empty"},
		{"missing column", rowsOK, modelsOK, "logged_gpu,note\nH100,\n", `no column "class"`},
		{"empty gpu", rowsOK, modelsOK, "logged_gpu,class,note\n,l4,\n", "row 2: logged_gpu is empty"},
		{"no header", "", modelsOK, gpusOK, "vllm.csv: no header"},
		{"ragged row", rowsOK + "3,org/c\n", modelsOK, gpusOK, "wrong number of fields"},
	} {
		_, err := Read(write(t, c.rows, c.models, c.gpus))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error with %q", c.name, err, c.want)
		}
	}
	if _, err := Read(t.TempDir()); err == nil || !strings.Contains(err.Error(), "vllm.csv") {
		t.Errorf("an empty directory: %v, want vllm.csv named", err)
	}
}

// TestTheCorpusReads reads the repository's own tables.
func TestTheCorpusReads(t *testing.T) {
	tables, err := Read("../../corpus/observed")
	if err != nil {
		t.Fatal(err)
	}
	if len(tables.Rows) < 100 || len(tables.Models) < 60 || len(tables.GPUs) < 20 {
		t.Errorf("%d rows, %d models, %d GPUs: fewer than the corpus holds", len(tables.Rows), len(tables.Models), len(tables.GPUs))
	}
}
