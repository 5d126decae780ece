package hub

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"membudget/model"
)

// Size caps per kind of file; a larger file is refused, not truncated.
const (
	// MaxConfigBytes caps a config.json. Real ones are a few KiB (the
	// largest shipped in corpus/models is under 10 KiB); 4 MiB refuses a
	// file that is plainly something else.
	MaxConfigBytes = 4 << 20
	// MaxIndexBytes caps a model.safetensors.index.json. Its weight_map has
	// one line of about 100 bytes per tensor: DeepSeek-V3's ~92,000 tensors
	// make ~9 MB, and a 384-expert model with fp8 scales ~14 MB, so 64 MiB
	// leaves room without admitting an unbounded read.
	MaxIndexBytes = 64 << 20
	// maxRefBytes caps a refs/<revision> file, which holds a 40-character
	// commit hash.
	maxRefBytes = 256
)

// fileKind names a mode that is not a regular file, for refusals.
func fileKind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	}
	return "not a regular file"
}

// openRegular opens path for reading after checking, without opening it,
// that it is (or links to) a regular file; a FIFO, a device or a directory
// is refused, never read. found is false when nothing is at path.
func openRegular(p string) (f *os.File, size int64, found bool, err error) {
	fi, err := os.Stat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0, false, nil
	}
	if err != nil {
		return nil, 0, false, err
	}
	if !fi.Mode().IsRegular() {
		return nil, 0, true, fmt.Errorf("%s is %s, not a file: refused", p, fileKind(fi.Mode()))
	}
	// openFlags adds O_NONBLOCK where there is one, so that a FIFO swapped
	// in after the check cannot block the open.
	f, err = os.OpenFile(p, os.O_RDONLY|openFlags, 0)
	if err != nil {
		return nil, 0, true, err
	}
	after, err := f.Stat()
	if err != nil || !after.Mode().IsRegular() || !os.SameFile(fi, after) {
		f.Close()
		return nil, 0, true, fmt.Errorf("%s changed while it was opened: refused", p)
	}
	return f, after.Size(), true, nil
}

// readRegular reads the regular file at p, refusing one larger than limit
// bytes; found is false when nothing is at p.
func readRegular(p string, limit int64) (data []byte, found bool, err error) {
	f, size, found, err := openRegular(p)
	if err != nil || !found {
		return nil, found, err
	}
	defer f.Close()
	if size > limit {
		return nil, true, fmt.Errorf("%s is %d bytes, more than the %d this reads", p, size, limit)
	}
	data, err = io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, true, fmt.Errorf("reading %s: %w", p, err)
	}
	if int64(len(data)) > limit {
		return nil, true, fmt.Errorf("%s grew past %d bytes while it was read", p, limit)
	}
	return data, true, nil
}

// ReadRegularFile reads the regular file at p, refusing one larger than
// limit bytes, for the engines' readers of a file the user names (a draft's
// config.json, vLLM's --config): a FIFO, a device or a directory is refused
// without opening it, so it can never block the read. A missing file is an
// error that [os.IsNotExist] reports.
func ReadRegularFile(p string, limit int64) ([]byte, error) {
	data, found, err := readRegular(p, limit)
	if err == nil && !found {
		err = notFound(p)
	}
	return data, err
}

// OpenRegularFile opens the regular file at p and returns its size, with
// [ReadRegularFile]'s refusals: a reader of its header (a safetensors
// file) never blocks on a FIFO.
func OpenRegularFile(p string) (*os.File, int64, error) {
	f, size, found, err := openRegular(p)
	if err == nil && !found {
		err = notFound(p)
	}
	return f, size, err
}

// notFound is the error of opening p, missing: the system's own errno (as
// os.Open words it), which [os.IsNotExist] reports. It stats p rather
// than opening it, so that a FIFO created at p since openRegular looked
// cannot block here.
func notFound(p string) error {
	var pe *fs.PathError
	if _, err := os.Stat(p); errors.As(err, &pe) && errors.Is(err, fs.ErrNotExist) {
		return &fs.PathError{Op: "open", Path: p, Err: pe.Err}
	}
	return &fs.PathError{Op: "open", Path: p, Err: fs.ErrNotExist}
}

// checkRepoFile refuses a file name taken from an index (or any other
// remote input) that could leave the directory it is joined to: it must be
// a clean relative slash path of a .safetensors file, without "..", a
// backslash, a colon or a control character.
func checkRepoFile(name string) error {
	switch {
	case name == "":
		return errors.New("empty file name")
	case strings.ContainsAny(name, `\:`):
		return errors.New("a backslash or colon in a file name is refused")
	case strings.ContainsFunc(name, func(r rune) bool { return r < ' ' || r == 0x7f }):
		return errors.New("a control character in a file name is refused")
	case path.IsAbs(name):
		return errors.New("an absolute path is refused")
	case slices.Contains(strings.Split(name, "/"), ".."):
		return errors.New(`a ".." in a file name is refused`)
	case path.Clean(name) != name:
		return errors.New("a file name must be a clean relative path")
	case !strings.HasSuffix(name, ".safetensors"):
		return errors.New("not a .safetensors file")
	}
	return nil
}

// within reports whether the cleaned path p is root or inside it.
func within(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// checkJSONText refuses a JSON file that is not UTF-8 text, naming the
// first bad byte: transformers reads config.json with open(json_file,
// encoding="utf-8") (configuration_utils.py, _dict_from_json_file), which
// raises UnicodeDecodeError on it, and vLLM and huggingface_hub read the
// index and hf_quant_config.json the same way. Go's decoder would turn the
// bytes into U+FFFD and match names against them.
func checkJSONText(data []byte) error {
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && size <= 1 {
			return fmt.Errorf("not valid UTF-8 (byte %d is %#02x), which transformers refuses", i, data[i])
		}
		i += size
	}
	return nil
}

// checkJSONFile is what file name fetched from the Hub must be before it
// is written into the cache: modules.json a JSON list (sentence-
// transformers writes its modules as one), any other file a JSON object
// (see checkJSONObject).
func checkJSONFile(name string, data []byte) error {
	if path.Base(name) != model.ModulesFile {
		return checkJSONObject(data)
	}
	if err := checkJSONText(data); err != nil {
		return err
	}
	if t := bytes.TrimLeft(data, " \t\r\n"); len(t) == 0 || t[0] != '[' || !json.Valid(data) {
		return errors.New("not a JSON list")
	}
	return nil
}

// checkJSONObject is what a file fetched from the Hub must be before it is
// written into the cache, where every later run would read it: UTF-8 text
// (see checkJSONText) holding one JSON object.
func checkJSONObject(data []byte) error {
	if err := checkJSONText(data); err != nil {
		return err
	}
	if t := bytes.TrimLeft(data, " \t\r\n"); len(t) == 0 || t[0] != '{' || !json.Valid(data) {
		return errors.New("not a JSON object")
	}
	return nil
}
