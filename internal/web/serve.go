package web

import (
	"context"
	"errors"
	"net"
	"net/http"
	"time"
)

// ShutdownTimeout is how long Serve waits, once its context is done, for
// the requests under way to finish.
const ShutdownTimeout = 5 * time.Second

// Serve serves h on ln until ctx is done (Ctrl-C), then shuts down:
// no new connection is accepted and the requests under way get
// ShutdownTimeout to finish. It returns nil after a shutdown, the
// server's error otherwise; ln is closed either way.
func Serve(ctx context.Context, ln net.Listener, h http.Handler) error {
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       time.Minute,
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), ShutdownTimeout)
	defer cancel()
	err := srv.Shutdown(sctx)
	if serr := <-done; !errors.Is(serr, http.ErrServerClosed) && err == nil {
		err = serr
	}
	return err
}
