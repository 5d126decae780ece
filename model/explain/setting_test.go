package explain

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSettingOf(t *testing.T) {
	logged := SettingFrom{Source: FromLogged, Value: "4096", Key: "max_model_len", Detail: "engine config", Line: 12}
	cases := []struct {
		name  string
		from  SettingFrom
		given bool
		want  Setting
	}{
		{"a flag", SettingFrom{Source: FromFlag}, true, Setting{Flag: "max-model-len", Value: "4096", Source: FromFlag}},
		{"a log line", logged, true, Setting{Flag: "max-model-len", Value: "4096", Source: FromLogged, Detail: "engine config: max_model_len=4096", Line: 12}},
		{"the default", SettingFrom{}, false, Setting{Flag: "max-model-len", Value: "4096", Source: "X default", Detail: "the model's maximum"}},
	}
	for _, c := range cases {
		got := SettingOf("max-model-len", "4096", c.from, c.given, "X default", "the model's maximum")
		if diff := cmp.Diff(c.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", c.name, diff)
		}
	}
}
