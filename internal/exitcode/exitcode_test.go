package exitcode

import (
	"context"
	"errors"
	"fmt"
	"testing"
)

func TestOf(t *testing.T) {
	base := errors.New("base")
	usage := With(base, Usage)
	tests := []struct {
		name string
		err  error
		code int
		ok   bool
	}{
		{"nil", nil, 0, false},
		{"plain", base, 0, false},
		{"coded", usage, Usage, true},
		{"wrapped", fmt.Errorf("context: %w", With(base, Partial)), Partial, true},
		{"twice wrapped", fmt.Errorf("a: %w", fmt.Errorf("b: %w", With(base, Regression))), Regression, true},
		{"joined", errors.Join(base, With(base, Usage)), Usage, true},
		{"joined, first wins", errors.Join(With(base, Partial), With(base, Usage)), Partial, true},
		{"made's code wins", With(fmt.Errorf("x: %w", With(base, Partial)), Usage), Partial, true},
		{"formatted with %v", fmt.Errorf("x: %v", usage), 0, false},
		{"interrupted", With(context.Canceled, Interrupted), Interrupted, true},
		{"OK carried", With(base, OK), OK, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, ok := Of(tt.err)
			if code != tt.code || ok != tt.ok {
				t.Errorf("Of = %d, %v; want %d, %v", code, ok, tt.code, tt.ok)
			}
		})
	}
}

func TestWith(t *testing.T) {
	base := errors.New("the run is partial")
	tests := []struct {
		name string
		err  error
		code int
		want int
	}{
		{"plain", base, Partial, Partial},
		{"wrapped", fmt.Errorf("sweep: %w", base), Usage, Usage},
		{"coded already", With(base, Regression), Usage, Regression},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := With(tt.err, tt.code)
			if got.Error() != tt.err.Error() {
				t.Errorf("message %q, want %q", got, tt.err)
			}
			if !errors.Is(got, base) {
				t.Errorf("errors.Is(%v, base) = false", got)
			}
			h, ok := got.(HasExitCode)
			if !ok {
				t.Fatalf("%T does not implement HasExitCode", got)
			}
			if h.ExitCode() != tt.want {
				t.Errorf("ExitCode() = %d, want %d", h.ExitCode(), tt.want)
			}
		})
	}
	if With(nil, Usage) != nil {
		t.Error("With(nil) != nil")
	}
	// A sentinel made with With stays comparable and keeps its code when
	// wrapped.
	sentinel := With(errors.New("a metric is worse than the baseline"), Regression)
	err := fmt.Errorf("compare: %w", sentinel)
	if !errors.Is(err, sentinel) {
		t.Error("errors.Is(wrapped sentinel, sentinel) = false")
	}
	if code, _ := Of(err); code != Regression {
		t.Errorf("Of(wrapped sentinel) = %d, want %d", code, Regression)
	}
}
