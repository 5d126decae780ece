package budget

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"regexp"
	"slices"
	"strings"
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
// how errors name the tree. Absent names the devices people ask for that
// the tree holds no class for on purpose, by every name --class may give
// them (lower case); [Catalog.Load] refuses such a name with the reason
// instead of a bare "no such class".
type Catalog struct {
	FS     fs.FS
	Dir    string
	Root   string
	Absent map[string]Absence
}

// Absence is a device that is no class on purpose: what it is and why no
// class stands for it.
type Absence struct {
	Device string
	Why    string
}

// Absences returns the catalog's absent devices, each once (however many
// names lead to it), sorted by device, with the names that lead to it.
func (c Catalog) Absences() []NamedAbsence {
	byDevice := map[Absence][]string{}
	for name, a := range c.Absent {
		byDevice[a] = append(byDevice[a], name)
	}
	out := make([]NamedAbsence, 0, len(byDevice))
	for a, names := range byDevice {
		slices.Sort(names)
		out = append(out, NamedAbsence{Absence: a, Names: names})
	}
	slices.SortFunc(out, func(x, y NamedAbsence) int { return strings.Compare(x.Device, y.Device) })
	return out
}

// NamedAbsence is an [Absence] with the names that lead to it.
type NamedAbsence struct {
	Absence
	Names []string
}

// DirCatalog is the catalog of a directory on disk, such as --kernels DIR.
func DirCatalog(dir string) Catalog {
	return Catalog{FS: os.DirFS(dir), Dir: ".", Root: dir}
}

func (c Catalog) filePath(name string) string {
	return c.Root + "/" + name + "/HARDWARE.toml"
}

// MaxClassFileBytes bounds a HARDWARE.toml: the shipped ones are under 4 KiB.
const MaxClassFileBytes = 64 << 10

// Load reads and strictly parses one class. Class names match without
// regard to case (H100-SXM-80G is h100-sxm-80g); the name is checked before
// any file is opened. An unknown name's error lists the classes and the
// nearest ones.
func (c Catalog) Load(name string) (Class, error) {
	name = strings.ToLower(name)
	if err := CheckClassName(name); err != nil {
		return Class{}, err
	}
	data, err := ReadRegular(c.FS, path.Join(c.Dir, name, "HARDWARE.toml"), c.filePath(name), MaxClassFileBytes)
	if errors.Is(err, fs.ErrNotExist) {
		if a, ok := c.Absent[name]; ok {
			return Class{}, fmt.Errorf("class %q: %w in %s: %s is not a class: %s", name, ErrUnknownClass, c.Root, a.Device, a.Why)
		}
		names, nerr := c.Names()
		if nerr != nil {
			return Class{}, nerr
		}
		hint := ""
		if near := Nearest(name, names, 3); len(near) > 0 {
			hint = fmt.Sprintf("; did you mean %s?", strings.Join(near, " or "))
		}
		return Class{}, fmt.Errorf("class %q: %w in %s%s (known: %s)", name, ErrUnknownClass, c.Root, hint, strings.Join(names, ", "))
	}
	if err != nil {
		return Class{}, err
	}
	return ParseClass(name, c.filePath(name), string(data))
}

// ReadRegular reads the regular file name of fsys, at most limit bytes; a
// directory, device, FIFO or socket is refused without being read, and a
// longer file is an error naming the limit. shown is how errors name the
// file.
func ReadRegular(fsys fs.FS, name, shown string, limit int64) ([]byte, error) {
	st, err := fs.Stat(fsys, name)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", shown, unwrapPath(err))
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file (%v); refusing to read it", shown, st.Mode().Type())
	}
	if st.Size() > limit {
		return nil, fmt.Errorf("%s: %d bytes, over the %d-byte limit for this kind of file", shown, st.Size(), limit)
	}
	f, err := fsys.Open(name)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", shown, unwrapPath(err))
	}
	defer f.Close()
	// The size can change between Stat and Read: read one byte past the
	// limit to notice.
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", shown, unwrapPath(err))
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s: over the %d-byte limit for this kind of file", shown, limit)
	}
	return data, nil
}

// unwrapPath drops a *fs.PathError's own operation and path, which name the
// file relative to an fs.FS root, so that the caller names it instead.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// Names lists the classes of the catalog, sorted: every directory whose name
// is a valid class name and which holds a HARDWARE.toml.
func (c Catalog) Names() ([]string, error) {
	entries, err := fs.ReadDir(c.FS, c.Dir)
	if err != nil {
		return nil, fmt.Errorf("kernels directory %s: %w", c.Root, unwrapPath(err))
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

// LoadAll loads every class of the catalog, in name order. It returns the
// classes that parse and, joined, the error of every one that does not.
func (c Catalog) LoadAll() ([]Class, error) {
	names, err := c.Names()
	if err != nil {
		return nil, err
	}
	classes := make([]Class, 0, len(names))
	var errs []error
	for _, n := range names {
		cl, err := c.Load(n)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		classes = append(classes, cl)
	}
	return classes, errors.Join(errs...)
}
