package manifest

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"

	"github.com/pelletier/go-toml/v2"
	"github.com/pelletier/go-toml/v2/unstable"
)

// Load reads the manifest file at path; see [Parse].
func Load(path string) (Manifest, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Manifest{}, fmt.Errorf("read manifest: %w", err)
	}
	return Parse(path, data)
}

// Parse decodes the TOML manifest data over [Default]: keys absent from data
// keep their default values. name is the file name used in error messages.
//
// Decoding is strict. A TOML syntax error, a value of the wrong type, a key
// defined twice and every unknown key are reported as [*Error]s naming name,
// line, column and key, e.g. "manifest.toml:7:1: load.rtae: unknown field".
// Parse checks only the form of the file; [Manifest.Validate] and
// [Manifest.Resolve] check the values, so that flags applied in between can
// still fix them.
func Parse(name string, data []byte) (Manifest, error) {
	m := Default()
	dec := toml.NewDecoder(bytes.NewReader(data)).DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return Manifest{}, decodeError(name, err)
	}
	m.file = name
	m.pos = keyPositions(data)
	return m, nil
}

// decodeError turns a go-toml error into joined [*Error]s naming file,
// position and key.
func decodeError(file string, err error) error {
	var strict *toml.StrictMissingError
	if errors.As(err, &strict) {
		errs := make([]*Error, 0, len(strict.Errors))
		for i := range strict.Errors {
			errs = append(errs, fromDecodeError(file, &strict.Errors[i]))
		}
		return joinSorted(errs)
	}
	var de *toml.DecodeError
	if errors.As(err, &de) {
		return fromDecodeError(file, de)
	}
	return &Error{File: file, Msg: strings.TrimPrefix(err.Error(), "toml: ")}
}

func fromDecodeError(file string, de *toml.DecodeError) *Error {
	line, col := de.Position()
	return &Error{
		File:   file,
		Line:   line,
		Column: col,
		Field:  displayPath(de.Key()),
		Msg:    decodeMessage(strings.TrimPrefix(de.Error(), "toml: ")),
	}
}

// typeMismatch matches go-toml's message for a value of the wrong type.
var typeMismatch = regexp.MustCompile(`^cannot decode TOML (\S+) into .* of type (\S+)$`)

// decodeMessage rewords go-toml's messages that talk about Go rather than
// about the file.
func decodeMessage(msg string) string {
	switch msg {
	case "unknown field":
		return "unknown field"
	case "missing table":
		return "unknown table"
	}
	if m := typeMismatch.FindStringSubmatch(msg); m != nil {
		return fmt.Sprintf("wrong type: want %s, got a TOML %s", tomlType(m[2]), m[1])
	}
	if m, ok := strings.CutPrefix(msg, "cannot store "); ok {
		return "wrong type: cannot store " + m
	}
	return msg
}

// tomlType names the TOML type that decodes into the Go type goType.
func tomlType(goType string) string {
	switch strings.TrimPrefix(goType, "*") {
	case "int", "int64":
		return "an integer"
	case "float64":
		return "a number"
	case "string":
		return "a string"
	case "bool":
		return "a boolean"
	}
	if strings.HasPrefix(goType, "map[") || strings.HasPrefix(goType, "manifest.") {
		return "a table"
	}
	return goType
}

// keyPositions walks the TOML document once and returns where each key is
// set, keyed by the dotted join of its parts, with every table header and
// dotted-key prefix included ("load", "load.rate", "config.mempool.size"),
// in file order. A key's position is that of its first part, so all of
// `mempool.size = 1` is at column 1. Quoted dotted keys join the same way:
// `"mempool.size" = 1` and `mempool.size = 1` under [config] are both found
// at "config.mempool.size". data must already have decoded without a syntax
// error.
func keyPositions(data []byte) map[string][]position {
	w := walker{pos: map[string][]position{}}
	for i, c := range data {
		if c == '\n' {
			w.newlines = append(w.newlines, i)
		}
	}
	w.p.Reset(data)
	var table []string
	for w.p.NextExpression() {
		e := w.p.Expression()
		switch e.Kind {
		case unstable.Table, unstable.ArrayTable:
			table = w.key(nil, e.Key())
		case unstable.KeyValue:
			w.keyValue(table, e)
		}
	}
	return w.pos
}

type walker struct {
	p        unstable.Parser
	pos      map[string][]position
	newlines []int // offsets of the document's '\n's
}

// at returns the line and column (from 1, in bytes) of a document offset.
func (w *walker) at(offset int) position {
	line, _ := slices.BinarySearch(w.newlines, offset)
	start := 0
	if line > 0 {
		start = w.newlines[line-1] + 1
	}
	return position{line: line + 1, column: offset - start + 1}
}

// key records prefix+key and each of its prefixes longer than prefix at the
// position of the key's first part, and returns the full path.
func (w *walker) key(prefix []string, it unstable.Iterator) []string {
	path := append([]string(nil), prefix...)
	var at position
	for first := true; it.Next(); first = false {
		k := it.Node()
		if first {
			at = w.at(int(k.Raw.Offset))
		}
		path = append(path, string(k.Data))
		dotted := strings.Join(path, ".")
		w.pos[dotted] = append(w.pos[dotted], at)
	}
	return path
}

// keyValue records a key-value expression and, for an inline table value,
// its keys.
func (w *walker) keyValue(prefix []string, kv *unstable.Node) {
	path := w.key(prefix, kv.Key())
	v := kv.Value()
	if v == nil || v.Kind != unstable.InlineTable {
		return
	}
	it := v.Children()
	for it.Next() {
		if c := it.Node(); c.Kind == unstable.KeyValue {
			w.keyValue(path, c)
		}
	}
}
