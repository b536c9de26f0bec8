package deploy

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// SSH is how ssh reaches a host: the same settings the inventory gives
// ansible.
type SSH struct {
	Host    string `json:"host"`
	Address string `json:"address"`
	User    string `json:"user"`
	Port    int    `json:"port"`
	Key     string `json:"key,omitempty"`
	// Args are extra ssh options (Plan.SSHArgs), split on white space.
	Args string `json:"args,omitempty"`
}

// Command returns the ssh command that runs remote (a shell command line)
// on the host, in batch mode (no password prompts).
func (s SSH) Command(ctx context.Context, remote string) *exec.Cmd {
	args := []string{"-o", "BatchMode=yes", "-p", strconv.Itoa(s.Port)}
	if s.Key != "" {
		args = append(args, "-i", s.Key)
	}
	args = append(args, strings.Fields(s.Args)...)
	args = append(args, s.User+"@"+s.Address, remote)
	return exec.CommandContext(ctx, "ssh", args...)
}

// Clock is a host's clock offset from the control host's, measured over
// ssh: the host's clock reads Offset more than the control host's, give
// or take Uncertainty.
type Clock struct {
	Host        string        `json:"host"`
	Offset      time.Duration `json:"offset_ns"`
	Uncertainty time.Duration `json:"uncertainty_ns"`
	// Samples is how many round trips were made; the one with the
	// shortest round trip gave Offset.
	Samples int `json:"samples"`
}

// clockLoop is the remote side of MeasureClock: it answers each line it
// reads with the host's time in Unix seconds with a fraction: bash's
// $EPOCHREALTIME (no fork, so the shortest round trips) where the login
// shell has it, else GNU date's.
const clockLoop = `while read -r _; do if [ -n "$EPOCHREALTIME" ]; then echo "$EPOCHREALTIME"; else date +%s.%N; fi; done`

// MeasureClock measures the host's clock offset with samples round trips
// over one ssh session, in the manner of NTP: for each, the host's time is
// compared with the midpoint of the control host's send and receive
// times; the round trip with the shortest duration is kept, its half
// bounding the error (see [measureClock]).
func MeasureClock(ctx context.Context, s SSH, samples int) (Clock, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	cmd := s.Command(ctx, clockLoop)
	in, err := cmd.StdinPipe()
	if err != nil {
		return Clock{}, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return Clock{}, err
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return Clock{}, fmt.Errorf("host %s: ssh: %w", s.Host, err)
	}
	c, err := measureClock(in, bufio.NewReader(out), samples, time.Now)
	in.Close()
	werr := cmd.Wait()
	if err != nil {
		if msg := strings.TrimSpace(stderr.String()); msg != "" {
			err = fmt.Errorf("%w (ssh: %s)", err, msg)
		} else if werr != nil {
			err = fmt.Errorf("%w (ssh: %v)", err, werr)
		}
		return Clock{}, fmt.Errorf("host %s: measure its clock: %w", s.Host, err)
	}
	c.Host = s.Host
	return c, nil
}

// measureClock makes samples round trips: a line to w, the remote's time
// (Unix seconds with a fraction) read back from r, now read before and
// after. A sample's offset is remote − (t0+t1)/2 and it is off by at most
// (t1−t0)/2 plus the resolution of the remote's answer, since the remote
// read its clock somewhere between t0 and t1 and printed it truncated;
// the sample with the smallest bound is returned.
func measureClock(w io.Writer, r *bufio.Reader, samples int, now func() time.Time) (Clock, error) {
	if samples < 1 {
		return Clock{}, errors.New("at least one sample")
	}
	best := Clock{Uncertainty: -1}
	for range samples {
		t0 := now()
		if _, err := io.WriteString(w, "\n"); err != nil {
			return Clock{}, err
		}
		line, err := r.ReadString('\n')
		t1 := now()
		if err != nil {
			return Clock{}, fmt.Errorf("no answer: %w", err)
		}
		ns, res, err := parseUnix(strings.TrimSpace(line))
		if err != nil {
			return Clock{}, fmt.Errorf("answer %q is not a Unix time in seconds with a fraction (does the host have bash or GNU date?)", strings.TrimSpace(line))
		}
		mid := t0.Add(t1.Sub(t0) / 2)
		// The remote's clock read truncated to its resolution (bash's
		// $EPOCHREALTIME: a microsecond): that widens the bound.
		half := t1.Sub(t0)/2 + res
		best.Samples++
		if best.Uncertainty < 0 || half < best.Uncertainty {
			best.Offset, best.Uncertainty = time.Unix(0, ns).Sub(mid), half
		}
	}
	return best, nil
}

// parseUnix reads "SECONDS.FRACTION" (up to nanoseconds; "," as the
// separator too, as bash prints $EPOCHREALTIME in some locales) as Unix
// nanoseconds, and its resolution (a microsecond for 6 decimals).
func parseUnix(s string) (ns int64, res time.Duration, err error) {
	sec, frac, _ := strings.Cut(strings.Replace(s, ",", ".", 1), ".")
	if len(frac) > 9 || sec == "" {
		return 0, 0, errors.New("not seconds with at most 9 decimals")
	}
	secs, err := strconv.ParseInt(sec, 10, 64)
	if err != nil || secs < 0 || secs >= math.MaxInt64/int64(time.Second) {
		return 0, 0, errors.New("not seconds")
	}
	if frac != "" {
		if ns, err = strconv.ParseInt(frac+strings.Repeat("0", 9-len(frac)), 10, 64); err != nil || ns < 0 || strings.ContainsAny(frac, "+-") {
			return 0, 0, errors.New("not a fraction")
		}
	}
	res = time.Second
	for range len(frac) {
		res /= 10
	}
	return secs*1e9 + ns, res, nil
}

// LoadRun is what load.yml needs of a run, its extra variable
// cometlab_run (see [WriteLoadRun]).
type LoadRun struct {
	ID       string `json:"id"`
	Endpoint string `json:"endpoint"`
	// Manifest is the control host's file of the load's manifest.
	Manifest string `json:"manifest"`
	// Collect is the control host's directory the send logs are fetched
	// into, one directory per host.
	Collect string `json:"collect"`
	// Hosts are the load hosts' shares, by host name.
	Hosts map[string]LoadShare `json:"hosts"`
}

// LoadShare is one load host's part of a run.
type LoadShare struct {
	Connections int `json:"connections"`
	ConnOffset  int `json:"conn_offset"`
	// StartAt is the load's start time by the host's own clock
	// (RFC 3339 with nanoseconds).
	StartAt string `json:"start_at"`
}

// WriteLoadRun writes r as load.yml's extra variables file.
func WriteLoadRun(path string, r LoadRun) error {
	data, err := json.MarshalIndent(map[string]any{"cometlab_run": r}, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o644)
}
