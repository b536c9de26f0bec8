package results

import (
	"bufio"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// Record is a row that knows how to write itself as CSV.
type Record interface {
	AppendCSV([]byte) []byte
}

// Writer appends rows to a CSV file. It is safe for concurrent use. Rows
// are buffered; Flush (called periodically by the run) and Close write them
// out, so a crash loses at most what was gathered since the last flush.
type Writer struct {
	mu   sync.Mutex
	path string
	f    *os.File
	bw   *bufio.Writer
	line []byte
	rows int64
}

// Create creates (truncating) a CSV file with the given header row.
func Create(path, header string) (*Writer, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	w := &Writer{path: path, f: f, bw: bufio.NewWriterSize(f, 256<<10)}
	if _, err := w.bw.WriteString(header + "\n"); err != nil {
		f.Close()
		return nil, err
	}
	return w, nil
}

// Write appends one row.
func (w *Writer) Write(r Record) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.line = append(r.AppendCSV(w.line[:0]), '\n')
	w.rows++
	_, err := w.bw.Write(w.line)
	return err
}

// Rows returns how many rows were written.
func (w *Writer) Rows() int64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.rows
}

// Flush writes buffered rows to the file. A failed write fails every
// later Write, Flush and Close too; the error names the file.
func (w *Writer) Flush() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.named(w.bw.Flush())
}

// named wraps err with the file's path.
func (w *Writer) named(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("write %s: %w", w.path, err)
}

// Close flushes and closes the file. It may be called more than once.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.f == nil {
		return nil
	}
	err := w.bw.Flush()
	if cerr := w.f.Close(); err == nil {
		err = cerr
	}
	w.f = nil
	return w.named(err)
}

// appendField appends s as a CSV field, quoting it when needed.
func appendField(b []byte, s string) []byte {
	if !strings.ContainsAny(s, ",\"\r\n") {
		return append(b, s...)
	}
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		if s[i] == '"' {
			b = append(b, '"')
		}
		b = append(b, s[i])
	}
	return append(b, '"')
}

// Open opens a run-directory CSV file for reading, transparently using
// NAME.gz when NAME does not exist. The caller closes the reader.
func Open(path string) (io.ReadCloser, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		gz, gerr := os.Open(path + ".gz")
		if gerr != nil {
			return nil, err
		}
		zr, zerr := gzip.NewReader(gz)
		if zerr != nil {
			gz.Close()
			return nil, fmt.Errorf("%s.gz: %w", path, zerr)
		}
		return struct {
			io.Reader
			io.Closer
		}{zr, gz}, nil
	}
	return f, err
}

// Scan reads a CSV file row by row, checking its header and calling fn with
// each row's fields (the slice is reused between calls; the strings are
// the caller's to keep). A truncated last line (a crash mid-write) is
// ignored, not an error. Rows without a quote are split at their commas
// without further parsing; rows with quotes are parsed as encoding/csv
// does.
func Scan(path, header string, fn func(fields []string) error) error {
	return scan(path, header, false, fn, nil)
}

// scan is Scan; with views set, the fields of rows without quotes are
// only valid during the call of fn (no allocation per row), for callers
// that copy the strings they keep. grow, when not nil, is told once how
// many rows an uncompressed file probably has in all, from the size of
// its first rows.
func scan(path, header string, views bool, fn func(fields []string) error, grow func(rows int)) error {
	rc, err := Open(path)
	if err != nil {
		return err
	}
	defer rc.Close()
	var size int64
	if f, ok := rc.(*os.File); ok && grow != nil {
		if st, err := f.Stat(); err == nil {
			size = st.Size()
		}
	}
	r := newRecordReader(rc, views)
	want := strings.Count(header, ",") + 1
	first, err := r.next()
	if err == io.EOF || err == errTruncated {
		return nil
	}
	if err != nil {
		return fmt.Errorf("%s: header: %w", filepath.Base(path), err)
	}
	if got := strings.Join(first, ","); got != header {
		return fmt.Errorf("%s: header %q, want %q", filepath.Base(path), got, header)
	}
	for line := 2; ; line++ {
		f, err := r.next()
		if err == io.EOF || err == errTruncated {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s:%d: %w", filepath.Base(path), line, err)
		}
		if len(f) != want {
			// A last line cut short by a crash has fewer fields; anything
			// after it would be a real format error, so peek.
			if _, nerr := r.next(); nerr == io.EOF || nerr == errTruncated {
				return nil
			}
			return fmt.Errorf("%s:%d: want %d fields, got %d", filepath.Base(path), line, want, len(f))
		}
		if err := fn(f); err != nil {
			return fmt.Errorf("%s:%d: %w", filepath.Base(path), line, err)
		}
		if line == 1025 && size > 0 {
			grow(int(float64(size) / float64(r.read) * 1024 * 1.02))
		}
	}
}

// readAll reads every row of a CSV file into a slice of T. The fields
// given to parse are views valid during the call: parse copies the
// strings it keeps (strings.Clone).
func readAll[T any, P interface {
	*T
	parse([]string) error
}](path, header string) ([]T, error) {
	var out []T
	err := scan(path, header, true, func(f []string) error {
		var zero T
		out = append(out, zero)
		if err := P(&out[len(out)-1]).parse(f); err != nil {
			out = out[:len(out)-1]
			return err
		}
		return nil
	}, func(rows int) { out = slices.Grow(out, rows-len(out)) })
	return out, err
}

// ReadSent reads dir/sent.csv, with or without its hash column (see
// SentHeaderV1).
func ReadSent(dir string) ([]Sent, error) {
	path := filepath.Join(dir, SentFile)
	header, err := SentFileHeader(path)
	if err != nil {
		return nil, err
	}
	return readAll[Sent](path, header)
}

// SentFileHeader returns the header a sent.csv file was written with:
// SentHeader, or SentHeaderV1 for files written before the hash column.
// An empty file is taken to have SentHeader.
func SentFileHeader(path string) (string, error) {
	rc, err := Open(path)
	if err != nil {
		return "", err
	}
	defer rc.Close()
	first, err := newRecordReader(rc, false).next()
	if err == nil && strings.Join(first, ",") == SentHeaderV1 {
		return SentHeaderV1, nil
	}
	return SentHeader, nil
}

// ReadReplies reads dir/replies.csv.
func ReadReplies(dir string) ([]Reply, error) {
	return readAll[Reply](filepath.Join(dir, RepliesFile), RepliesHeader)
}

// ReadTxs reads dir/txs.csv.
func ReadTxs(dir string) ([]Tx, error) {
	return readAll[Tx](filepath.Join(dir, TxsFile), TxsHeader)
}

// ReadBlocks reads dir/blocks.csv.
func ReadBlocks(dir string) ([]Block, error) {
	return readAll[Block](filepath.Join(dir, BlocksFile), BlocksHeader)
}

// ReadAdoption reads dir/adoption.csv.
func ReadAdoption(dir string) ([]Adoption, error) {
	return readAll[Adoption](filepath.Join(dir, AdoptionFile), AdoptionHeader)
}

// ReadEvents reads dir/events.csv; a run without one (made before events
// were recorded) has no events and no error.
func ReadEvents(dir string) ([]Event, error) {
	ev, err := readAll[Event](filepath.Join(dir, EventsFile), EventsHeader)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return ev, err
}

// scanBatches reads the rows of a CSV file in batches of up to n rows,
// calling fn with each (the slice is reused after fn returns), so that a
// file of any length is read in bounded memory.
func scanBatches[T any, P interface {
	*T
	parse([]string) error
}](path, header string, n int, fn func([]T) error) error {
	buf := make([]T, 0, n)
	err := scan(path, header, true, func(f []string) error {
		var zero T
		buf = append(buf, zero)
		if err := P(&buf[len(buf)-1]).parse(f); err != nil {
			buf = buf[:len(buf)-1]
			return err
		}
		if len(buf) == n {
			err := fn(buf)
			buf = buf[:0]
			return err
		}
		return nil
	}, nil)
	if err == nil && len(buf) > 0 {
		err = fn(buf)
	}
	return err
}

// ScanBatch is the number of rows ScanSent, ScanReplies and ScanTxs give
// at a time.
const ScanBatch = 4096

// ScanSent reads dir/sent.csv (or .gz), with or without its hash column
// (see SentHeaderV1), in batches of up to ScanBatch rows, calling fn with
// each; the slice is reused after fn returns.
func ScanSent(dir string, fn func([]Sent) error) error {
	path := filepath.Join(dir, SentFile)
	header, err := SentFileHeader(path)
	if err != nil {
		return err
	}
	return scanBatches[Sent](path, header, ScanBatch, fn)
}

// ScanReplies reads dir/replies.csv as ScanSent reads sent.csv.
func ScanReplies(dir string, fn func([]Reply) error) error {
	return scanBatches[Reply](filepath.Join(dir, RepliesFile), RepliesHeader, ScanBatch, fn)
}

// ScanTxs reads dir/txs.csv as ScanSent reads sent.csv.
func ScanTxs(dir string, fn func([]Tx) error) error {
	return scanBatches[Tx](filepath.Join(dir, TxsFile), TxsHeader, ScanBatch, fn)
}
