package logs

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestSettingsPastTheCapKeepTheLastValue: issue 19, defect 8. Past the
// settings' cap a setting already read takes the later value, so that
// explain never sizes with an earlier line's value, and the notes say
// what was not kept. At the default cap (100,000) and at a small one.
func TestSettingsPastTheCapKeepTheLastValue(t *testing.T) {
	t.Parallel()
	for _, cap := range []int{1, DefaultMaxSettings} {
		// cap statements of max model len 10, then 20, then a setting
		// never seen before the cap.
		var b strings.Builder
		for range cap {
			b.WriteString("Using max model len 10\n")
		}
		b.WriteString("Using max model len 20\n")
		b.WriteString("non-default args: {'gpu_memory_utilization': 0.85}\n")
		log, err := Limits{MaxSettings: cap}.Parse(strings.NewReader(b.String()))
		if err != nil {
			t.Fatal(err)
		}
		s, ok := log.Setting("max_model_len")
		if !ok || s.Value != "20" || s.Line != cap+1 {
			t.Errorf("cap %d: max_model_len = %+v, want 20 from line %d", cap, s, cap+1)
		}
		if log.DroppedSettings != 2 || log.DroppedNewSettings != 1 || len(log.Settings) != cap {
			t.Errorf("cap %d: dropped %d (new %d), kept %d; want 2, 1, %d", cap, log.DroppedSettings, log.DroppedNewSettings, len(log.Settings), cap)
		}
		want := []string{fmt.Sprintf("2 setting statement(s) past the reader's cap of %d were not kept as their own: a setting already read took their value (its last statement still wins); 1 of a setting not read before were left out", cap)}
		if diff := cmp.Diff(want, log.ReadNotes()); diff != "" {
			t.Errorf("cap %d: notes (-want +got):\n%s", cap, diff)
		}
	}
}

// TestNotANumberFiguresNoted: a figure printed as nan or inf is not read,
// and the notes say so with its line (before: the line was skipped as
// unknown, without a word).
func TestNotANumberFiguresNoted(t *testing.T) {
	t.Parallel()
	log, err := Parse(strings.NewReader("GPU KV cache size: 1 tokens\nINFO Available KV cache memory: nan GiB\nMaximum concurrency for 10 tokens per request: infx\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{`2 line(s) state a figure as nan or inf, which is not read (first at line 2: "INFO Available KV cache memory: nan GiB")`}
	if diff := cmp.Diff(want, log.ReadNotes()); diff != "" {
		t.Errorf("notes (-want +got):\n%s", diff)
	}
	if len(log.Figures) != 1 {
		t.Errorf("%d figures, want the one KV cache size", len(log.Figures))
	}
}
