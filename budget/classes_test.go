package budget

import (
	"errors"
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
)

func TestCheckClassName(t *testing.T) {
	for _, ok := range []string{"h100-sxm-80g", "a", "0", "gb10", "rtx-4090", "x.y_z"} {
		if err := CheckClassName(ok); err != nil {
			t.Errorf("CheckClassName(%q) = %v, want nil", ok, err)
		}
	}
	for _, bad := range []string{"", "../x", "A/B", "H100", "-x", ".hidden", "a/b", "a\\b", "a b", "/abs", "x\x00"} {
		if err := CheckClassName(bad); !errors.Is(err, ErrClassName) {
			t.Errorf("CheckClassName(%q) = %v, want ErrClassName", bad, err)
		}
	}
}

// openCounter is an fs.FS that records every name it is asked to open.
type openCounter struct {
	fstest.MapFS
	opened []string
}

func (o *openCounter) Open(name string) (fs.File, error) {
	o.opened = append(o.opened, name)
	return o.MapFS.Open(name)
}

func TestCatalogRefusesBadNamesBeforeOpening(t *testing.T) {
	fsys := &openCounter{MapFS: fstest.MapFS{"x/HARDWARE.toml": {Data: []byte(validFile)}}}
	c := Catalog{FS: fsys, Dir: ".", Root: "kernels"}
	for _, bad := range []string{"../x", "A/B", ""} {
		if _, err := c.Load(bad); !errors.Is(err, ErrClassName) {
			t.Errorf("Load(%q) = %v, want ErrClassName", bad, err)
		}
	}
	if len(fsys.opened) != 0 {
		t.Errorf("opened %v before refusing bad names", fsys.opened)
	}
	if _, err := c.Load("missing"); !errors.Is(err, ErrUnknownClass) {
		t.Errorf("Load(missing) = %v, want ErrUnknownClass", err)
	}
	got, err := c.Load("x")
	if err != nil || got.Name != "x" {
		t.Fatalf("Load(x) = %+v, %v", got, err)
	}
	names, err := c.Names()
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"x"}, names); diff != "" {
		t.Errorf("Names (-want +got):\n%s", diff)
	}
}

func TestCatalogErrorNamesTheFile(t *testing.T) {
	c := Catalog{FS: fstest.MapFS{"bad/HARDWARE.toml": {Data: []byte("[memory]\n")}}, Dir: ".", Root: "/my/kernels"}
	_, err := c.Load("bad")
	want := "/my/kernels/bad/HARDWARE.toml [device]: the class declares no [device] table\n" +
		"/my/kernels/bad/HARDWARE.toml [memory]: driver_fixed_bytes: missing (every key is required; there is no default)\n" +
		"/my/kernels/bad/HARDWARE.toml [memory]: driver_budget_per_mille: missing (every key is required; there is no default)\n" +
		"/my/kernels/bad/HARDWARE.toml [memory]: unified: missing (every key is required; there is no default)\n" +
		"/my/kernels/bad/HARDWARE.toml [memory]: util_ceiling: missing (every key is required; there is no default)\n" +
		"/my/kernels/bad/HARDWARE.toml [provenance]: the class declares no [provenance] table"
	if diff := cmp.Diff(want, errString(err)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestCatalogNamesAndErrors: names match in any case, a near miss gets
// "did you mean", LoadAll lists the good classes and reports every bad
// one, and a missing --kernels directory is named.
func TestCatalogNamesAndErrors(t *testing.T) {
	fsys := fstest.MapFS{
		"h100-sxm-80g/HARDWARE.toml": {Data: []byte(validFile)},
		"h200/HARDWARE.toml":         {Data: []byte(validFile)},
		"bad-one/HARDWARE.toml":      {Data: []byte("[memory]\n")},
		"bad-two/HARDWARE.toml":      {Data: []byte(strings.Replace(validFile, "memory_bytes = 85899345920", "memory_bytes = 9223372036854775807", 1))},
	}
	c := Catalog{FS: fsys, Dir: ".", Root: "k"}
	if cl, err := c.Load("H100-SXM-80G"); err != nil || cl.Name != "h100-sxm-80g" {
		t.Errorf("Load(H100-SXM-80G) = %q, %v", cl.Name, err)
	}
	_, err := c.Load("h100-sxm-80")
	if want := `class "h100-sxm-80": no such class in k; did you mean h100-sxm-80g? (known: bad-one, bad-two, h100-sxm-80g, h200)`; errString(err) != want {
		t.Errorf("near miss:\n got %s\nwant %s", errString(err), want)
	}
	classes, err := c.LoadAll()
	var names []string
	for _, cl := range classes {
		names = append(names, cl.Name)
	}
	if diff := cmp.Diff([]string{"h100-sxm-80g", "h200"}, names); diff != "" {
		t.Errorf("the good classes (-want +got):\n%s", diff)
	}
	if err == nil || !strings.Contains(err.Error(), "k/bad-one/HARDWARE.toml [device]") || !strings.Contains(err.Error(), "k/bad-two/HARDWARE.toml [device]: memory_bytes") {
		t.Errorf("LoadAll error does not report both bad classes: %v", err)
	}
	_, err = DirCatalog("/nonexistent/kernels").Names()
	if want := "kernels directory /nonexistent/kernels: no such file or directory"; errString(err) != want {
		t.Errorf("missing directory: %q, want %q", errString(err), want)
	}
}

// TestCatalogRefusesAbsentDevices: a name the catalog lists as absent is
// refused with its reason (still ErrUnknownClass, so callers branch as
// before), a class file of that name wins over the note, and Absences
// lists each device once with the names that lead to it.
func TestCatalogRefusesAbsentDevices(t *testing.T) {
	gaudi := Absence{Device: "Gaudi", Why: "another engine path"}
	c := Catalog{
		FS:     fstest.MapFS{"present/HARDWARE.toml": {Data: []byte(validFile)}},
		Dir:    ".",
		Root:   "k",
		Absent: map[string]Absence{"gaudi3": gaudi, "gaudi-3": gaudi, "present": {Device: "P", Why: "stale note"}},
	}
	tests := []struct {
		name, want string
	}{
		{"gaudi3", `class "gaudi3": no such class in k: Gaudi is not a class: another engine path`},
		// Names match in any case, as for classes.
		{"Gaudi-3", `class "gaudi-3": no such class in k: Gaudi is not a class: another engine path`},
		{"other", `class "other": no such class in k (known: present)`},
	}
	for _, tt := range tests {
		_, err := c.Load(tt.name)
		if !errors.Is(err, ErrUnknownClass) {
			t.Errorf("Load(%q) = %v, want ErrUnknownClass", tt.name, err)
		}
		if diff := cmp.Diff(tt.want, errString(err)); diff != "" {
			t.Errorf("Load(%q) (-want +got):\n%s", tt.name, diff)
		}
	}
	if cl, err := c.Load("present"); err != nil || cl.Name != "present" {
		t.Errorf("Load(present) = %q, %v: a class file wins over an absence note", cl.Name, err)
	}
	want := []NamedAbsence{{Absence: gaudi, Names: []string{"gaudi-3", "gaudi3"}}, {Absence: Absence{Device: "P", Why: "stale note"}, Names: []string{"present"}}}
	if diff := cmp.Diff(want, c.Absences()); diff != "" {
		t.Errorf("Absences (-want +got):\n%s", diff)
	}
}
