package safetensors

import (
	"strings"
	"testing"
)

// TestHeaderErrorsEscapedAndBounded: strings of the header quoted in an
// error are escaped and cut (issue 19, defects 2 and 3): before, a
// metadata string holding terminal escapes reached stderr raw through
// "want a JSON object, got %v", and a 10 MiB tensor name gave a 10.5 MB
// error line.
func TestHeaderErrorsEscapedAndBounded(t *testing.T) {
	t.Parallel()
	huge := strings.Repeat("n", 10<<20)
	for _, c := range []struct {
		name, header, want string
	}{
		// The header decodes \u001b to ESC and \u0007 to BEL.
		{"terminal escapes in a metadata string", `{"__metadata__":"\u001b]0;pwned\u0007\u001b[2J"}`,
			`f: __metadata__: the format allows only a map of strings: want a JSON object, got "\u001b]0;pwned\u0007\u001b[2J"`},
		{"terminal escapes in a tensor entry", `{"\u001b[31m":"\u009b2J"}`,
			`f: tensor "\x1b[31m": `},
		{"a 10 MiB tensor name", `{"` + huge + `":{"dtype":"F16","shape":[1],"data_offsets":[0,3]}}`,
			`f: tensor "` + strings.Repeat("n", 256) + `"…(10485504 more bytes): `},
		{"a 10 MiB dtype", `{"a":{"dtype":"` + huge + `","shape":[1],"data_offsets":[0,2]}}`,
			`unknown dtype "` + strings.Repeat("n", 256) + `"…(10485504 more bytes)`},
	} {
		_, err := ParseHeader("f", []byte(c.header), 0)
		if err == nil {
			t.Fatalf("%s: no error", c.name)
		}
		msg := err.Error()
		if !strings.Contains(msg, c.want) {
			t.Errorf("%s: error %.400q, want it to hold %.400q", c.name, msg, c.want)
		}
		if strings.ContainsAny(msg, "\x1b\x07\u009b") || len(msg) > 2048 {
			t.Errorf("%s: error of %d bytes holds a control character or is unbounded: %.400q", c.name, len(msg), msg)
		}
	}
}
