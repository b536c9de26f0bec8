package analysis

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/cometlab/cometlab/internal/results"
)

// The node logs of a run (logs/<node>.log, logs/<node>.app.log), read for
// what went wrong: Go panics, CometBFT's CONSENSUS FAILURE, and error
// lines by module. Every release cometlab runs (v0.34–v1.x) writes the
// same two formats (libs/log): "plain",
//
//	E[2026-11-26|05:22:48.123] Stopping peer for error                      module=p2p peer=… err=EOF
//
// and "json" (go-kit's JSON logger, keys sorted),
//
//	{"_msg":"Stopping peer for error","err":"EOF","level":"error","module":"p2p","ts":"…"}
//
// A panic is Go's own "panic: …" (or "fatal error: …") on stderr, which
// goes to the same file, followed by the goroutine trace. Later loggers'
// forms (logfmt "level=error", slog JSON "level":"ERROR", a console
// "ERR" level) are recognised too.

// Kinds of Issue.
const (
	IssuePanic            = "panic"             // a Go panic or fatal error: the process died
	IssueConsensusFailure = "consensus_failure" // CONSENSUS FAILURE!!!: consensus recovered a panic and stopped
	IssueCrash            = "crash"             // a node process exited on its own (events.csv)
	IssueError            = "error"             // an error-level log line, by module
)

// Limits of a log scan, so that memory stays bounded whatever the logs.
const (
	maxLogLine    = 64 << 10 // bytes of a line looked at; the rest is skipped
	maxQuote      = 400      // bytes of a quoted line
	maxTraceLines = 6        // lines of a panic's trace kept after its first
	maxModules    = 64       // distinct modules counted per log; the rest count as "other"
)

// Quote is one line of a log, as found.
type Quote struct {
	Node string `json:"node"`
	File string `json:"file"` // relative to the run directory
	Line int64  `json:"line"` // 1-based; 0 for an event
	Text string `json:"text"` // at most maxQuote bytes
}

// LogCount is how many lines of one kind (and module) a log holds, and
// the first of them.
type LogCount struct {
	Kind   string   `json:"kind"`
	Module string   `json:"module,omitempty"`
	Count  int64    `json:"count"`
	First  Quote    `json:"first"`
	Trace  []string `json:"trace,omitempty"` // a panic's next lines
}

// LogFile is the scan of one log file.
type LogFile struct {
	Node   string     `json:"node"` // the node, or NODE/app for its app's log
	File   string     `json:"file"`
	Lines  int64      `json:"lines"`
	Bytes  int64      `json:"bytes"`
	Counts []LogCount `json:"counts,omitempty"`
}

// LogScanner classifies the lines of one log, one at a time, keeping
// counts and the first line of each kind; it holds no line but those.
type LogScanner struct {
	f       LogFile
	index   map[string]int // kind/module → index in f.Counts
	trace   int            // index in f.Counts of a panic whose trace is being read; -1 none
	modules int
}

// NewLogScanner returns a scanner of the log file (relative to the run
// directory) of node.
func NewLogScanner(node, file string) *LogScanner {
	return &LogScanner{f: LogFile{Node: node, File: file}, index: map[string]int{}, trace: -1}
}

// Line takes the next line of the log, without its newline.
func (s *LogScanner) Line(line []byte) {
	s.f.Lines++
	if s.trace >= 0 {
		c := &s.f.Counts[s.trace]
		if t := bytes.TrimSpace(line); len(t) > 0 && len(c.Trace) < maxTraceLines {
			c.Trace = append(c.Trace, clip(t))
		}
		if len(c.Trace) >= maxTraceLines {
			s.trace = -1
		}
	}
	kind, module := ClassifyLogLine(line)
	if kind == "" {
		return
	}
	if kind == IssueError && s.modules >= maxModules {
		if _, ok := s.index[kind+"/"+module]; !ok {
			module = "other"
		}
	}
	key := kind + "/" + module
	i, ok := s.index[key]
	if !ok {
		i = len(s.f.Counts)
		s.index[key] = i
		s.f.Counts = append(s.f.Counts, LogCount{Kind: kind, Module: module, First: Quote{Node: s.f.Node, File: s.f.File, Line: s.f.Lines, Text: clip(line)}})
		if kind == IssueError {
			s.modules++
		}
		if kind == IssuePanic {
			s.trace = i
		}
	}
	s.f.Counts[i].Count++
}

// File returns the scan so far.
func (s *LogScanner) File() LogFile { return s.f }

// clip returns line as text of at most maxQuote bytes, cut on a rune.
func clip(line []byte) string {
	line = bytes.TrimRight(line, " \r\t")
	if len(line) <= maxQuote {
		return strings.ToValidUTF8(string(line), "?")
	}
	cut := maxQuote
	for cut > 0 && !utf8.RuneStart(line[cut]) {
		cut--
	}
	return strings.ToValidUTF8(string(line[:cut]), "?") + " …"
}

// ClassifyLogLine says what a log line is: IssuePanic, IssueConsensusFailure
// or IssueError (with its module, "" when it names none), or "" for any
// other line.
func ClassifyLogLine(line []byte) (kind, module string) {
	switch {
	case bytes.HasPrefix(line, []byte("panic: ")) || bytes.HasPrefix(line, []byte("fatal error: ")):
		return IssuePanic, ""
	case bytes.Contains(line, []byte("CONSENSUS FAILURE")):
		return IssueConsensusFailure, ""
	case bytes.HasPrefix(line, []byte("E[")):
		return IssueError, logfmtValue(line, "module")
	case len(line) > 1 && line[1] == '[' && bytes.IndexByte([]byte("DINW"), line[0]) >= 0:
		return "", "" // a plain line of another level
	case bytes.HasPrefix(line, []byte("{")):
		return classifyJSON(line)
	}
	if v := logfmtValue(line, "level"); v != "" {
		if strings.EqualFold(v, "error") || strings.EqualFold(v, "err") {
			return IssueError, logfmtValue(line, "module")
		}
		return "", ""
	}
	// A console logger: "3:04PM ERR msg module=p2p".
	if f := bytes.Fields(line[:min(len(line), 64)]); len(f) >= 2 && string(f[1]) == "ERR" {
		return IssueError, logfmtValue(line, "module")
	}
	return "", ""
}

// classifyJSON reads a JSON log line's level and module.
func classifyJSON(line []byte) (kind, module string) {
	low := bytes.ToLower(line)
	if !bytes.Contains(low, []byte(`"level":"err`)) && !bytes.Contains(low, []byte(`"level": "err`)) {
		return "", ""
	}
	var rec struct {
		Level  string `json:"level"`
		Module string `json:"module"`
	}
	if json.Unmarshal(line, &rec) != nil {
		return "", ""
	}
	if l := strings.ToLower(rec.Level); l != "error" && l != "err" {
		return "", ""
	}
	return IssueError, rec.Module
}

// logfmtValue returns the value of key in a logfmt line (key=value or
// key="value"), at the start of the line or after a space; "" if absent.
func logfmtValue(line []byte, key string) string {
	k := []byte(key + "=")
	for from := 0; from < len(line); {
		i := bytes.Index(line[from:], k)
		if i < 0 {
			return ""
		}
		i += from
		if i == 0 || line[i-1] == ' ' {
			v := line[i+len(k):]
			if len(v) > 0 && v[0] == '"' {
				if end := bytes.IndexByte(v[1:], '"'); end >= 0 {
					return string(v[1 : 1+end])
				}
				return ""
			}
			if end := bytes.IndexAny(v, " \t"); end >= 0 {
				v = v[:end]
			}
			return string(v)
		}
		from = i + len(k)
	}
	return ""
}

// ScanLog reads r line by line into a LogScanner of node and file; lines
// longer than maxLogLine are looked at up to that length.
func ScanLog(r io.Reader, node, file string) (LogFile, error) {
	s := NewLogScanner(node, file)
	br := bufio.NewReaderSize(r, maxLogLine)
	for {
		line, err := br.ReadSlice('\n')
		full := errors.Is(err, bufio.ErrBufferFull)
		s.f.Bytes += int64(len(line))
		if len(line) > 0 {
			s.Line(bytes.TrimSuffix(line, []byte("\n")))
		}
		for full { // skip the rest of a long line
			var rest []byte
			rest, err = br.ReadSlice('\n')
			s.f.Bytes += int64(len(rest))
			full = errors.Is(err, bufio.ErrBufferFull)
		}
		switch {
		case err == io.EOF:
			return s.File(), nil
		case err != nil:
			return s.File(), err
		}
	}
}

// ScanLogs scans every *.log file of the run directory's logs/ (a node's
// log as the node, NODE.app.log as NODE/app), in name order; nil without
// a logs directory.
func ScanLogs(dir string) ([]LogFile, error) {
	entries, err := os.ReadDir(filepath.Join(dir, results.LogsDir))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	out := []LogFile{}
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".log") {
			continue
		}
		node := strings.TrimSuffix(name, ".log")
		if n, ok := strings.CutSuffix(node, ".app"); ok {
			node = n + "/app"
		}
		rel := filepath.ToSlash(filepath.Join(results.LogsDir, name))
		f, err := os.Open(filepath.Join(dir, results.LogsDir, name))
		if err != nil {
			return out, err
		}
		lf, err := ScanLog(f, node, rel)
		f.Close()
		if err != nil {
			return out, fmt.Errorf("%s: %w", rel, err)
		}
		out = append(out, lf)
	}
	slices.SortStableFunc(out, func(a, b LogFile) int { return strings.Compare(a.File, b.File) })
	return out, nil
}
