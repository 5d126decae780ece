package engine

import (
	"errors"
	"testing"

	"membudget/model/explain"
)

func TestServeRefusal(t *testing.T) {
	logged := explain.SettingFrom{Source: explain.FromLogged, Key: "max_model_len", Value: "999999", Line: 7}
	from := map[string]explain.SettingFrom{
		"max-model-len": logged,
		"dtype":         {Source: explain.FromFlag},
	}
	// A refusal of a setting the log gave names the flag and the line.
	se := ServeRefusal(Refuse("max-model-len", 999999, "too long"), from)
	if se.Flag != "max-model-len" || se.Logged == nil || *se.Logged != logged {
		t.Errorf("logged setting: %+v; want the flag and the log's line", se)
	}
	// A refusal of a setting given as a flag names the flag only.
	if se := ServeRefusal(Refuse("dtype", "x", "no"), from); se.Flag != "dtype" || se.Logged != nil {
		t.Errorf("flag setting: %+v; want the flag and no log line", se)
	}
	// Any other error is kept whole, with no flag.
	plain := errors.New("the model has no layers")
	if se := ServeRefusal(plain, from); se.Flag != "" || se.Logged != nil || !errors.Is(se, plain) {
		t.Errorf("plain error: %+v; want it wrapped as it is", se)
	}
}
