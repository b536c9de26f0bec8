package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/cometlab/cometlab/internal/history"
)

// remember adds the directory of a run, sweep, search, A/B experiment or
// QA that ended to the history index ($COMETLAB_HISTORY, or the default
// place; "off" turns it off). It never fails the command: a directory that
// was never made is left out, a problem is a warning.
func remember(st *state, dir string) {
	if dir == "" {
		return
	}
	if _, err := os.Stat(dir); err != nil {
		return // nothing ran
	}
	path, err := history.Locate("", os.Getenv)
	if errors.Is(err, history.ErrOff) {
		return
	}
	warn := func(err error) {
		fmt.Fprintf(st.stderr, "cometlab: warning: %s not added to the history: %v ('cometlab history add %s' adds it)\n", dir, err, dir)
	}
	if err != nil {
		warn(err)
		return
	}
	// Not the command's context: an interrupted run is on disk and
	// belongs in the history too.
	ctx, cancel := context.WithTimeout(context.Background(), history.BusyTimeout+10*time.Second)
	defer cancel()
	x, err := history.Open(ctx, path)
	if err != nil {
		warn(err)
		return
	}
	defer x.Close()
	if _, err := x.Add(ctx, dir); err != nil {
		warn(err)
	}
}
