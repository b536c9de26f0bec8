package experiment

import (
	"fmt"
	"io"
	"os"
	"sync"
)

// printer writes progress. On a terminal a status line is redrawn in
// place; elsewhere (CI, files) only phase lines are printed, so logs stay
// short.
type printer struct {
	mu       sync.Mutex
	w        io.Writer
	tty      bool
	inStatus bool
}

func newPrinter(w io.Writer) *printer {
	if w == nil {
		w = io.Discard
	}
	p := &printer{w: w}
	if f, ok := w.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			p.tty = true
		}
	}
	return p
}

// Phase prints a line that stays.
func (p *printer) Phase(format string, a ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.inStatus {
		fmt.Fprint(p.w, "\r\033[K")
		p.inStatus = false
	}
	fmt.Fprintf(p.w, format+"\n", a...)
}

// Status redraws the status line (terminal only).
func (p *printer) Status(format string, a ...any) {
	if !p.tty {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintf(p.w, "\r\033[K"+format, a...)
	p.inStatus = true
}

// Write lets the printer serve as an io.Writer for phase lines (e.g. the
// binary fetcher's progress).
func (p *printer) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.inStatus {
		fmt.Fprint(p.w, "\r\033[K")
		p.inStatus = false
	}
	return p.w.Write(b)
}

// Live prints a line of figures that change: redrawn in place on a
// terminal, one line at a time otherwise.
func (p *printer) Live(format string, a ...any) {
	if p.tty {
		p.Status(format, a...)
		return
	}
	p.Phase(format, a...)
}
