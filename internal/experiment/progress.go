package experiment

import (
	"fmt"
	"io"
	"os"
	"sync"
)

// Printer writes progress. On a terminal a status line is redrawn in
// place; elsewhere (CI, files) only phase lines are printed, so logs stay
// short.
type Printer struct {
	mu       sync.Mutex
	w        io.Writer
	tty      bool
	inStatus bool
}

// NewPrinter is a Printer writing to w (nil: nowhere); a terminal gets a
// status line redrawn in place.
func NewPrinter(w io.Writer) *Printer {
	if w == nil {
		w = io.Discard
	}
	p := &Printer{w: w}
	if f, ok := w.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			p.tty = true
		}
	}
	return p
}

// Phase prints a line that stays.
func (p *Printer) Phase(format string, a ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.inStatus {
		fmt.Fprint(p.w, "\r\033[K")
		p.inStatus = false
	}
	fmt.Fprintf(p.w, format+"\n", a...)
}

// Status redraws the status line (terminal only).
func (p *Printer) Status(format string, a ...any) {
	if !p.tty {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintf(p.w, "\r\033[K"+format, a...)
	p.inStatus = true
}

// Write lets the Printer serve as an io.Writer for phase lines (e.g. the
// binary fetcher's progress).
func (p *Printer) Write(b []byte) (int, error) {
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
func (p *Printer) Live(format string, a ...any) {
	if p.tty {
		p.Status(format, a...)
		return
	}
	p.Phase(format, a...)
}
