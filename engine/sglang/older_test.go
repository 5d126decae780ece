package sglang

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestOlder: older ranks releases as profiles lists them, newest first;
// the figures by hand from the list: v0.5.10.post1 is before v0.5.11,
// v0.5.11 is not before itself, v0.5.12 is after it, v0.4.9.post2 is
// before v0.5.6.post2, and a post release after its release.
func TestOlder(t *testing.T) {
	for _, tt := range []struct {
		p, release string
		want       bool
	}{
		{"v0.5.10.post1", "v0.5.11", true},
		{"v0.5.11", "v0.5.11", false},
		{"v0.5.12", "v0.5.11", false},
		{"v0.4.9.post2", "v0.5.6.post2", true},
		{"v0.5.13", "v0.5.13.post1", true},
		{"v0.5.13.post1", "v0.5.13", false},
	} {
		if got := older(mustProfile(tt.p), tt.release); got != tt.want {
			t.Errorf("older(%s, %s) = %v, want %v", tt.p, tt.release, got, tt.want)
		}
	}
}

// TestOlderRefusesAnUnknownRelease: a misspelt release (a letter l for
// a 1) is no profile's, and older panics rather than rank it below every
// release, which left the rule it gates unapplied everywhere.
func TestOlderRefusesAnUnknownRelease(t *testing.T) {
	for _, name := range []string{"v0.5.1l", "0.5.11", "v0.5.11.post1", ""} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("older(v0.5.12, %q) did not panic", name)
				}
			}()
			older(mustProfile("v0.5.12"), name)
		}()
	}
}

// TestOlderReleasesNamed reads the package's source and resolves the
// release of every call of older: a string literal, or a package
// constant, must be a profile's name; a flag table span's from or until
// is TestFlagTableReleasesNamed's to check, a profile's Name is one by
// construction. Any other argument fails, to be named so that it can be
// checked: a misspelt release cannot pass silently.
func TestOlderReleasesNamed(t *testing.T) {
	fset := token.NewFileSet()
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	var files []*ast.File
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".go") || e.Name() == "older_test.go" {
			continue // this file's calls misspell on purpose
		}
		f, err := parser.ParseFile(fset, e.Name(), nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	// The package's string constants, by name.
	consts := map[string]string{}
	for _, f := range files {
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.CONST {
				continue
			}
			for _, s := range g.Specs {
				vs := s.(*ast.ValueSpec)
				for i, n := range vs.Names {
					if i < len(vs.Values) {
						if lit, ok := vs.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
							consts[n.Name], _ = strconv.Unquote(lit.Value)
						}
					}
				}
			}
		}
	}
	calls, named := 0, 0
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			c, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			if id, ok := c.Fun.(*ast.Ident); !ok || id.Name != "older" || len(c.Args) != 2 {
				return true
			}
			calls++
			at := fset.Position(c.Pos())
			var name string
			switch a := c.Args[1].(type) {
			case *ast.BasicLit:
				name, _ = strconv.Unquote(a.Value)
			case *ast.Ident:
				v, ok := consts[a.Name]
				if !ok {
					t.Errorf("%s: older's release %s is no string constant of the package", at, a.Name)
					return true
				}
				name = v
			case *ast.SelectorExpr:
				if a.Sel.Name != "from" && a.Sel.Name != "until" && a.Sel.Name != "Name" {
					t.Errorf("%s: older's release .%s is neither a flag table span's from or until nor a profile's Name", at, a.Sel.Name)
				}
				return true
			default:
				t.Errorf("%s: older's release is neither a literal, a constant nor a field this test knows: name it so that it can be checked", at)
				return true
			}
			named++
			if _, ok := releaseRank[name]; !ok {
				t.Errorf("%s: older's release %q is no profile's", at, name)
			}
			return true
		})
	}
	// The calls of older in the package when this test was written: 14 in
	// its code (7 of a flag table span or a profile's Name, 7 of a literal
	// or constant) and one in spec_test.go (a constant); fewer says the
	// walk misses some.
	if calls < 15 || named < 8 {
		t.Errorf("found %d calls of older, %d of a literal or constant; want at least 15 and 8: is the walk reading the package?", calls, named)
	}
}
