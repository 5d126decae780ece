package sglang

import (
	"errors"
	"os"
	"strings"
	"testing"

	"membudget/engine"
	"membudget/model"
)

// TestRewardModelRefused: Qwen2ForProcessRewardModel is in SGLang's native
// list, but SGLang serves it as an embedding model (--is-embedding), which
// is not modelled: refused naming --model, rather than sized as a
// generating Qwen2.
func TestRewardModelRefused(t *testing.T) {
	data, err := os.ReadFile("../../corpus/models/Qwen__Qwen2.5-Math-PRM-7B.json")
	if err != nil {
		t.Fatal(err)
	}
	a, err := model.ParseConfig("config.json", data)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Resolve(Serve{}, a, class(t, "h100-sxm-80g"), current)
	var se *engine.SettingError
	if !errors.As(err, &se) || se.Flag != "model" || !strings.Contains(err.Error(), "--is-embedding") {
		t.Errorf("got %v, want a refusal naming --model and SGLang's embedding serve", err)
	}
}
