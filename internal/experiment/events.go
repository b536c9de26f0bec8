package experiment

import (
	"fmt"
	"log/slog"

	"github.com/cometlab/cometlab/internal/results"
)

// eventLog writes events.csv as events happen: each row is flushed at
// once, so a crash loses none.
type eventLog struct {
	w      *results.Writer
	logger *slog.Logger
}

func newEventLog(path string, logger *slog.Logger) (*eventLog, error) {
	w, err := results.Create(path, results.EventsHeader)
	if err != nil {
		return nil, err
	}
	return &eventLog{w: w, logger: logger}, nil
}

// write records e; a failed write is logged (close reports it).
func (l *eventLog) write(e results.Event) {
	l.logger.Debug("node event", "node", e.Node, "event", e.Kind, "detail", e.Detail)
	if err := l.w.Write(&e); err != nil {
		l.logger.Error("events.csv", "err", err)
		return
	}
	if err := l.w.Flush(); err != nil {
		l.logger.Error("events.csv", "err", err)
	}
}

// close closes the file after the testnet stopped; a failure is an error
// of the run.
func (l *eventLog) close(rd *runDir) {
	if err := l.w.Close(); err != nil {
		rd.fail(problemEvents, "", fmt.Errorf("events.csv: %w", err))
	}
}
