package results

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"io"
	"strings"
	"unsafe"
)

// errTruncated is the error of a last record cut inside a quoted field (a
// crash mid-write).
var errTruncated = errors.New("truncated record")

// recordReader reads CSV records as encoding/csv does (RFC 4180, empty
// lines skipped, \r\n taken as \n), several times faster for the rows
// that make up nearly all of a run directory: a line without a quote is
// split at its commas with no parsing at all, and only a line with a
// quote goes through encoding/csv (with as many following lines as its
// quoted fields span).
type recordReader struct {
	br     *bufio.Reader
	long   []byte // a line longer than br's buffer
	rec    []byte // a quoted record
	fields []string
	// views makes the fields of unquoted lines point into the reader's
	// buffer instead of a fresh string: valid only until the next call
	// of next, so only for callers that copy what they keep.
	views bool
	read  int64 // bytes read so far
}

func newRecordReader(r io.Reader, views bool) *recordReader {
	return &recordReader{br: bufio.NewReaderSize(r, 1<<20), views: views}
}

// readLine returns the next line with its newline (none at the end of the
// input), valid until the next read; err is io.EOF with the last line.
func (r *recordReader) readLine() ([]byte, error) {
	line, err := r.br.ReadSlice('\n')
	r.read += int64(len(line))
	if err != bufio.ErrBufferFull {
		return line, err
	}
	r.long = append(r.long[:0], line...)
	for err == bufio.ErrBufferFull {
		line, err = r.br.ReadSlice('\n')
		r.read += int64(len(line))
		r.long = append(r.long, line...)
	}
	return r.long, err
}

func trimEOL(b []byte) []byte {
	if n := len(b); n > 0 && b[n-1] == '\n' {
		b = b[:n-1]
		if n := len(b); n > 0 && b[n-1] == '\r' {
			b = b[:n-1]
		}
	}
	return b
}

// next returns the next record's fields (the slice is reused), io.EOF
// after the last, or errTruncated for a last record cut in a quoted field.
func (r *recordReader) next() ([]string, error) {
	for {
		line, err := r.readLine()
		if err != nil && err != io.EOF {
			return nil, err
		}
		atEOF := err == io.EOF
		body := trimEOL(line)
		if atEOF && len(body) > 0 && body[len(body)-1] == '\r' {
			body = body[:len(body)-1] // as encoding/csv does
		}
		if len(body) == 0 {
			if atEOF {
				return nil, io.EOF
			}
			continue // encoding/csv skips empty lines
		}
		if bytes.IndexByte(body, '"') < 0 {
			var s string
			if r.views {
				s = unsafe.String(&body[0], len(body))
			} else {
				s = string(body)
			}
			r.fields = r.fields[:0]
			for {
				i := strings.IndexByte(s, ',')
				if i < 0 {
					r.fields = append(r.fields, s)
					return r.fields, nil
				}
				r.fields = append(r.fields, s[:i])
				s = s[i+1:]
			}
		}
		// Quoted fields may span lines: take lines until the quotes pair up.
		r.rec = append(r.rec[:0], line...)
		for bytes.Count(r.rec, []byte{'"'})%2 == 1 {
			if atEOF {
				return nil, errTruncated
			}
			more, err := r.readLine()
			if err != nil && err != io.EOF {
				return nil, err
			}
			if len(more) == 0 {
				return nil, errTruncated
			}
			r.rec = append(r.rec, more...)
			atEOF = err == io.EOF
		}
		cr := csv.NewReader(bytes.NewReader(r.rec))
		cr.FieldsPerRecord = -1
		f, err := cr.Read()
		if err != nil {
			return nil, err
		}
		return f, nil
	}
}
