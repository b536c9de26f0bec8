package resultstest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Case is one case of a data-driven test file (testdata/*.txt), in the
// format of cockroachdb/datadriven that etcd-io/raft's tests use, less its
// key=(v1, v2) arguments and its ----/---- outputs with blank lines:
//
//	# a comment
//	command key=value …
//	input line
//	…
//	----
//	expected output
//	(a blank line, or the end of the file)
//
// Lines starting with '#' are comments, except in the expected output.
type Case struct {
	Pos   string            // file:line of the command
	Line  string            // the command line, trimmed
	Cmd   string            // its first word
	Args  map[string]string // its other words key=value; a word without '=' maps to ""
	Input []string          // the input lines, trimmed, without blank lines and comments
	Want  string            // the expected output, without its final newline

	outFrom, outTo int // the lines of the expected output: [outFrom, outTo)
}

// RunFiles runs every case of the files matching glob through fn, one
// subtest a file, and compares what fn returns (less final newlines)
// with the case's expected output; under -update it rewrites the expected
// outputs and leaves the rest of each file as it was. It fails when no
// file matches or a file has no case, so that a moved testdata directory
// cannot pass for a passing test.
func RunFiles(t *testing.T, glob string, fn func(t *testing.T, c Case) string) {
	t.Helper()
	files, err := filepath.Glob(glob)
	if err != nil {
		t.Fatalf("%s: %v", glob, err)
	}
	if len(files) == 0 {
		t.Fatalf("no file matches %s", glob)
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(string(b), "\n")
			cases, err := parseCases(filepath.Base(path), lines)
			if err != nil {
				t.Fatal(err)
			}
			gots := make([]string, len(cases))
			for i, c := range cases {
				gots[i] = strings.TrimRight(fn(t, c), "\n")
				if strings.Contains(gots[i], "\n\n") {
					t.Fatalf("%s: %s: the output has a blank line, which would end it:\n%s", c.Pos, c.Line, gots[i])
				}
				if !*update && gots[i] != c.Want {
					t.Errorf("%s: %s\ngot:\n%s\nwant:\n%s", c.Pos, c.Line, gots[i], c.Want)
				}
			}
			if *update {
				WriteFile(t, path, []byte(strings.Join(rewrite(lines, cases, gots), "\n")))
			}
		})
	}
}

// rewrite returns lines with the expected output of each case replaced
// by the output got of the same index.
func rewrite(lines []string, cases []Case, got []string) []string {
	var out []string
	last := 0
	for i, c := range cases {
		out = append(out, lines[last:c.outFrom]...)
		if got[i] != "" {
			out = append(out, strings.Split(got[i], "\n")...)
		}
		last = c.outTo
	}
	return append(out, lines[last:]...)
}

// parseCases reads the cases of a file's lines; name is the file's name
// for positions.
func parseCases(name string, lines []string) ([]Case, error) {
	var cases []Case
	for i := 0; i < len(lines); i++ {
		l := strings.TrimSpace(lines[i])
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		fields := strings.Fields(l)
		c := Case{Pos: fmt.Sprintf("%s:%d", name, i+1), Line: l, Cmd: fields[0], Args: map[string]string{}}
		for _, f := range fields[1:] {
			k, v, _ := strings.Cut(f, "=")
			c.Args[k] = v
		}
		for i++; i < len(lines) && strings.TrimSpace(lines[i]) != "----"; i++ {
			if s := strings.TrimSpace(lines[i]); s != "" && !strings.HasPrefix(s, "#") {
				c.Input = append(c.Input, s)
			}
		}
		if i >= len(lines) {
			return nil, fmt.Errorf("%s: %s: no ---- line", c.Pos, c.Line)
		}
		c.outFrom = i + 1
		var want []string
		for i++; i < len(lines) && lines[i] != ""; i++ {
			want = append(want, lines[i])
		}
		c.outTo = i
		c.Want = strings.Join(want, "\n")
		cases = append(cases, c)
	}
	if len(cases) == 0 {
		return nil, fmt.Errorf("%s: no case", name)
	}
	return cases, nil
}
