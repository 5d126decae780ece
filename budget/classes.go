package budget

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"regexp"
	"slices"
)

var classNamePattern = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]*$`)

// ErrClassName is wrapped by the error for a class name that is not
// [a-z0-9][a-z0-9._-]* (and so could leave the kernels directory).
var ErrClassName = errors.New("a class name is [a-z0-9][a-z0-9._-]*")

// ErrUnknownClass is wrapped by the error for a well-formed class name that
// the catalog has no file for.
var ErrUnknownClass = errors.New("no such class")

// CheckClassName returns an error wrapping ErrClassName unless name is a
// valid class name; it opens nothing.
func CheckClassName(name string) error {
	if !classNamePattern.MatchString(name) {
		return fmt.Errorf("class %q: %w", name, ErrClassName)
	}
	return nil
}

// Catalog is a tree of class files, <class>/HARDWARE.toml under Dir of FS,
// such as the embedded kernels/ directory or a user's --kernels DIR. Root is
// how errors name the tree.
type Catalog struct {
	FS   fs.FS
	Dir  string
	Root string
}

// DirCatalog is the catalog of a directory on disk, such as --kernels DIR.
func DirCatalog(dir string) Catalog {
	return Catalog{FS: os.DirFS(dir), Dir: ".", Root: dir}
}

func (c Catalog) filePath(name string) string {
	return c.Root + "/" + name + "/HARDWARE.toml"
}

// Load reads and strictly parses one class. The name is checked before any
// file is opened.
func (c Catalog) Load(name string) (Class, error) {
	if err := CheckClassName(name); err != nil {
		return Class{}, err
	}
	data, err := fs.ReadFile(c.FS, path.Join(c.Dir, name, "HARDWARE.toml"))
	if errors.Is(err, fs.ErrNotExist) {
		names, _ := c.Names()
		return Class{}, fmt.Errorf("class %q: %w in %s (known: %v)", name, ErrUnknownClass, c.Root, names)
	}
	if err != nil {
		return Class{}, fmt.Errorf("%s: %w", c.filePath(name), err)
	}
	return ParseClass(name, c.filePath(name), string(data))
}

// Names lists the classes of the catalog, sorted: every directory whose name
// is a valid class name and which holds a HARDWARE.toml.
func (c Catalog) Names() ([]string, error) {
	entries, err := fs.ReadDir(c.FS, c.Dir)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", c.Root, err)
	}
	var names []string
	for _, e := range entries {
		if !e.IsDir() || CheckClassName(e.Name()) != nil {
			continue
		}
		if _, err := fs.Stat(c.FS, path.Join(c.Dir, e.Name(), "HARDWARE.toml")); err == nil {
			names = append(names, e.Name())
		}
	}
	slices.Sort(names)
	return names, nil
}

// LoadAll loads every class of the catalog, in name order; the first class
// that does not parse is the error.
func (c Catalog) LoadAll() ([]Class, error) {
	names, err := c.Names()
	if err != nil {
		return nil, err
	}
	classes := make([]Class, 0, len(names))
	for _, n := range names {
		cl, err := c.Load(n)
		if err != nil {
			return nil, err
		}
		classes = append(classes, cl)
	}
	return classes, nil
}
