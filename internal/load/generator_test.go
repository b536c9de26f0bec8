package load

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cometlab/cometlab/internal/shape"
)

func TestRun(t *testing.T) {
	checkNoLeak(t)
	f := newFakeNode(t, nil)
	l := newLogs(t)
	cfg := Config{Endpoint: f.endpoint(), Connections: 2, Rate: 200, Size: 256, Duration: 500 * time.Millisecond}
	g := l.generator(t, cfg)
	// Stats may be read while the load runs.
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			select {
			case <-stop:
				return
			case <-time.After(time.Millisecond):
				if s := g.Stats(); s.Replies > s.Sent {
					t.Errorf("more replies than sends: %+v", s)
				}
			}
		}
	})
	err := g.Run(t.Context())
	close(stop)
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	l.read(t)
	l.checkSchedule(t, 2, 100)

	got, bad := f.received()
	if len(bad) > 0 {
		t.Errorf("bad requests: %q", bad)
	}
	first := l.sentBy[[2]uint64{0, 0}].Intended
	for k, s := range l.sentBy {
		if s.Err != "" || s.Actual == 0 || s.Size != 256 {
			t.Errorf("send %v: %+v", k, s)
		}
		// Connection 1 runs 2.5 ms behind connection 0: one stream of 400/s.
		if want := first + int64(k[1])*5e6 + int64(k[0])*2.5e6; s.Intended != want {
			t.Errorf("send %v intended at %d, want %d", k, s.Intended, want)
		}
		if s.Actual < s.Intended-int64(earlyWindow) {
			t.Errorf("send %v made %v early", k, time.Duration(s.Intended-s.Actual))
		}
		if got[k] != 1 {
			t.Errorf("send %v received %d times", k, got[k])
		}
		r, ok := l.repliesBy[k]
		if !ok || !r.OK || r.Code != 0 || r.Hash != fmt.Sprintf("%016X", k[1]) || r.At < s.Actual {
			t.Errorf("send %v: reply %+v (found %v)", k, r, ok)
		}
	}
	if len(l.replyRows) != 200 || l.duplicateReply {
		t.Errorf("%d replies (duplicates: %v), want 200", len(l.replyRows), l.duplicateReply)
	}
	// Late is left out: a busy machine may delay a send by 10 ms.
	if s := g.Stats(); s.Sent != 200 || s.Replies != 200 || s.Unsent != 0 || s.Errors != 0 {
		t.Errorf("stats %+v", s)
	}
}

// TestRunShaped runs a square wave: the sends follow the shape's one
// stream over both connections, and nothing is sent in the off phase.
func TestRunShaped(t *testing.T) {
	checkNoLeak(t)
	f := newFakeNode(t, nil)
	l := newLogs(t)
	cfg := Config{Endpoint: f.endpoint(), Connections: 2, Rate: 100, Size: 256, Duration: 600 * time.Millisecond,
		Shape: shape.Spec{Kind: shape.Square, On: 200 * time.Millisecond, Off: 200 * time.Millisecond}}
	sched, err := cfg.Schedule()
	if err != nil {
		t.Fatal(err)
	}
	if err := l.generator(t, cfg).Run(t.Context()); err != nil {
		t.Fatal(err)
	}
	l.read(t)
	// 2 × 100 tx/s for the 400 ms on: 80 sends.
	if len(l.sentBy) != 80 || sched.Count() != 80 {
		t.Fatalf("%d sends, schedule %d, want 80", len(l.sentBy), sched.Count())
	}
	first := l.sentBy[[2]uint64{0, 0}].Intended
	for k, s := range l.sentBy {
		due, _ := sched.Due(k[1]*2 + k[0])
		if s.Err != "" || s.Intended != first+int64(due) {
			t.Errorf("send %v: %+v, want intended at +%v", k, s, due)
		}
		if off := time.Duration(s.Intended - first); off >= 200*time.Millisecond && off < 400*time.Millisecond {
			t.Errorf("send %v due in the off phase (+%v)", k, off)
		}
	}
	if _, err := New(Config{Endpoint: f.endpoint(), Connections: 1, Rate: 1, Size: 256, Duration: time.Second,
		Pacing: PacingBurst, Shape: shape.Spec{Kind: shape.Square, On: time.Second}}, nil, nil, nil); err == nil ||
		!strings.Contains(err.Error(), "only for the constant shape") {
		t.Errorf("burst pacing of a square wave: got %v", err)
	}
}

func TestRunErrorReplies(t *testing.T) {
	checkNoLeak(t)
	f := newFakeNode(t, func(f *fakeNode) { f.errorFor = func(id uint64) bool { return id%4 == 0 } })
	l := newLogs(t)
	g := l.generator(t, Config{Endpoint: f.endpoint(), Connections: 1, Rate: 100, Size: 512, Duration: 500 * time.Millisecond})
	if err := g.Run(t.Context()); err != nil {
		t.Fatal(err)
	}
	l.read(t)
	l.checkSchedule(t, 1, 50)
	errs := 0
	for _, r := range l.replyRows {
		if r.Seq%4 != 0 {
			if !r.OK {
				t.Errorf("reply %+v, want OK", r)
			}
			continue
		}
		errs++
		if r.OK || r.Code != -32603 || r.Message != "Internal error: mempool is full: number of txs 5000 (max: 5000)" {
			t.Errorf("reply %+v, want the mempool error", r)
		}
	}
	if s := g.Stats(); errs != 13 || s.Errors != 13 || s.Replies != 50 || s.Sent != 50 {
		t.Errorf("%d error replies logged, stats %+v; want 13 errors of 50", errs, s)
	}
}

// TestRunReconnects drops the connection mid-run: the sends until the
// redial (one second after the first dial) are logged as failed, and the
// load goes on over the new connection.
func TestRunReconnects(t *testing.T) {
	checkNoLeak(t)
	f := newFakeNode(t, func(f *fakeNode) { f.dropAfter = 20 })
	l := newLogs(t)
	g := l.generator(t, Config{Endpoint: f.endpoint(), Connections: 1, Rate: 50, Size: 256, Duration: 1600 * time.Millisecond})
	if err := g.Run(t.Context()); err != nil {
		t.Fatal(err)
	}
	l.read(t)
	l.checkSchedule(t, 1, 80)
	got, _ := f.received()
	notConnected, unsent := 0, 0
	for k, s := range l.sentBy {
		if s.Err != "" {
			unsent++
			if strings.HasPrefix(s.Err, errNotConnected) {
				notConnected++
				if s.Actual != 0 {
					t.Errorf("send %v not made has actual time %d", k, s.Actual)
				}
			} else if !strings.HasPrefix(s.Err, errWrite) {
				t.Errorf("send %v: error %q", k, s.Err)
			}
			if got[k] != 0 {
				t.Errorf("send %v logged as failed (%s) was received", k, s.Err)
			}
		}
	}
	if notConnected == 0 {
		t.Errorf("no send logged as not connected")
	}
	for n := uint64(60); n < 80; n++ { // well after the redial
		k := [2]uint64{0, n}
		if s := l.sentBy[k]; s.Err != "" || got[k] != 1 || !l.repliesBy[k].OK {
			t.Errorf("send %v after the redial: %+v, received %d times", k, s, got[k])
		}
	}
	if s := g.Stats(); s.Unsent != uint64(unsent) || s.Sent+s.Unsent != 80 || f.conns != 2 {
		t.Errorf("stats %+v, %d failed sends logged, %d connections", s, unsent, f.conns)
	}
}

// TestRunEndpointGone stops the node mid-run: redials fail and the sends
// say why.
func TestRunEndpointGone(t *testing.T) {
	checkNoLeak(t)
	var f *fakeNode
	f = newFakeNode(t, func(f *fakeNode) { f.dropAfter = 10 })
	l := newLogs(t)
	g := l.generator(t, Config{Endpoint: f.endpoint(), Connections: 1, Rate: 50, Size: 256, Duration: 1500 * time.Millisecond})
	time.AfterFunc(300*time.Millisecond, f.srv.Close)
	if err := g.Run(t.Context()); err != nil {
		t.Fatal(err)
	}
	l.read(t)
	l.checkSchedule(t, 1, 75)
	refused := 0
	for _, s := range l.sentRows {
		if strings.HasPrefix(s.Err, errNotConnected+"dial "+f.endpoint()+": ") && strings.Contains(s.Err, "connection refused") {
			refused++
		}
	}
	if refused == 0 || g.Stats().Unsent < uint64(refused) {
		t.Errorf("%d sends failed with the refused redial, stats %+v", refused, g.Stats())
	}
}

func TestRunDialFails(t *testing.T) {
	checkNoLeak(t)
	f := newFakeNode(t, nil)
	for _, tt := range []struct {
		endpoint string
		want     []string
	}{
		{closedPort(t), []string{"connection refused"}},
		{strings.TrimSuffix(f.endpoint(), "/websocket") + "/nope", []string{"bad handshake", "404"}},
	} {
		l := newLogs(t)
		g := l.generator(t, Config{Endpoint: tt.endpoint, Connections: 3, Rate: 10, Size: 256, Duration: time.Second})
		err := g.Run(t.Context())
		want := append(tt.want, "dial "+tt.endpoint+": ")
		for _, w := range want {
			if err == nil || !strings.Contains(err.Error(), w) {
				t.Errorf("Run(%s) = %v, want an error containing %q", tt.endpoint, err, w)
			}
		}
		if l.read(t); len(l.sentRows) != 0 {
			t.Errorf("%d sends logged after a failed dial", len(l.sentRows))
		}
	}
}

func TestRunCancel(t *testing.T) {
	for _, silent := range []bool{false, true} {
		t.Run(fmt.Sprintf("silent=%v", silent), func(t *testing.T) {
			checkNoLeak(t)
			f := newFakeNode(t, func(f *fakeNode) { f.silent = silent })
			l := newLogs(t)
			g := l.generator(t, Config{Endpoint: f.endpoint(), Connections: 2, Rate: 100, Size: 256, Duration: 10 * time.Second})
			ctx, cancel := context.WithCancel(t.Context())
			var cancelledAt atomic.Int64 // Unix ns
			start := time.Now()
			time.AfterFunc(300*time.Millisecond, func() { cancelledAt.Store(time.Now().UnixNano()); cancel() })
			err := g.Run(ctx)
			took := time.Since(start)
			if !errors.Is(err, context.Canceled) {
				t.Errorf("Run = %v, want context.Canceled", err)
			}
			// A silent node holds Run for the drain timeout; a node that
			// replies does not.
			if limit := 300*time.Millisecond + 500*time.Millisecond; (!silent && took > limit) ||
				(silent && (took < CancelDrainTimeout || took > limit+CancelDrainTimeout)) {
				t.Errorf("Run took %v after the cancel", took-300*time.Millisecond)
			}
			l.read(t)
			s := g.Stats()
			// What was due by the cancel (200 tx/s from the start), whenever
			// the timer fired on a busy machine: no send after it but those
			// in flight (one per connection).
			due := uint64(200*time.Unix(0, cancelledAt.Load()).Sub(start).Seconds()) + 2
			if s.Sent < 1 || s.Sent > due+2 || len(l.sentRows) != int(s.Sent+s.Unsent) {
				t.Errorf("stats %+v, %d sends logged; want 1…%d sent (due by the cancel), every one logged", s, len(l.sentRows), due+2)
			}
			// Sends due when the cancel came but not yet made say so.
			for _, r := range l.sentRows {
				if r.Err != "" && r.Err != errCancelled {
					t.Errorf("send %+v", r)
				}
			}
			want := s.Sent
			if silent {
				want = 0
			}
			if s.Replies != want || len(l.replyRows) != int(want) {
				t.Errorf("%d replies, %d logged; want %d", s.Replies, len(l.replyRows), want)
			}
		})
	}
}

// TestRunCatchesUp starts the schedule 600 ms in the past: the sends already
// due go out at once, late, and the rest on time.
func TestRunCatchesUp(t *testing.T) {
	checkNoLeak(t)
	f := newFakeNode(t, nil)
	l := newLogs(t)
	g := l.generator(t, Config{Endpoint: f.endpoint(), Connections: 1, Rate: 100, Size: 256, Duration: time.Second})
	if err := g.run(t.Context(), time.Now().Add(-600*time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	l.read(t)
	l.checkSchedule(t, 1, 100)
	late := 0
	for _, s := range l.sentRows {
		if s.Err != "" {
			t.Errorf("send %+v", s)
		}
		if time.Duration(s.Actual-s.Intended) > DefaultLateThreshold {
			late++
		}
	}
	// At least those due more than 10 ms before the start are late; a busy
	// machine may add more.
	if s := g.Stats(); s.Late < 59 || abs(int(s.Late)-late) > 2 || s.Sent != 100 {
		t.Errorf("stats %+v, %d sends logged late; want at least 59 late of 100", s, late)
	}
}

// TestRunDropsImpossible starts the schedule so far in the past that the
// load window has closed: every send is logged as dropped.
func TestRunDropsImpossible(t *testing.T) {
	checkNoLeak(t)
	l := newLogs(t)
	g := l.generator(t, Config{Endpoint: closedPort(t), Connections: 2, Rate: 100, Size: 256, Duration: time.Second})
	if err := g.run(t.Context(), time.Now().Add(-5*time.Second)); err != nil {
		t.Fatal(err)
	}
	l.read(t)
	l.checkSchedule(t, 2, 100)
	for _, s := range l.sentRows {
		if s.Err != errDropped || s.Actual != 0 {
			t.Fatalf("send %+v, want dropped", s)
		}
	}
	if s := g.Stats(); s != (Stats{Unsent: 200}) {
		t.Errorf("stats %+v", s)
	}
}

// TestRunLateBurst sends loadtime-style batches: every send of a second is
// due at its start, so all but the first few leave late, and say so.
func TestRunLateBurst(t *testing.T) {
	checkNoLeak(t)
	f := newFakeNode(t, nil)
	l := newLogs(t)
	g := l.generator(t, Config{Endpoint: f.endpoint(), Connections: 1, Rate: 3000, Size: 1024, Duration: time.Second,
		Pacing: PacingBurst, LateThreshold: time.Millisecond})
	if err := g.Run(t.Context()); err != nil {
		t.Fatal(err)
	}
	l.read(t)
	l.checkSchedule(t, 1, 3000)
	late := 0
	for _, s := range l.sentRows {
		if s.Intended != l.sentRows[0].Intended {
			t.Fatalf("burst send %+v not due with the first", s)
		}
		if time.Duration(s.Actual-s.Intended) > time.Millisecond {
			late++
		}
	}
	// How many are late depends on the machine; that they are counted as
	// the log shows does not.
	if s := g.Stats(); s.Late < min(100, s.Sent/2) || abs(int(s.Late)-late) > 5 {
		t.Errorf("stats %+v, %d sends logged late", s, late)
	}
	// A busy machine may not send the whole burst within the load's
	// second: the rest is logged unsent (no actual time), and counted.
	var sent []int64
	for _, s := range l.sentRows {
		if s.Actual != 0 {
			sent = append(sent, s.Actual)
		}
	}
	if s := g.Stats(); len(sent) < 2 || int(s.Sent) != len(sent) || s.Sent+s.Unsent != 3000 {
		t.Fatalf("stats %+v, %d sends logged with a time: want 3000 accounted, at least 2 sent", s, len(sent))
	}
	if sent[len(sent)-1] <= sent[0] {
		t.Errorf("the last burst send left before the first")
	}
}

func TestRunNilLogs(t *testing.T) {
	checkNoLeak(t)
	f := newFakeNode(t, nil)
	g, err := New(Config{Endpoint: f.endpoint(), Connections: 1, Rate: 100, Size: 256, Duration: 200 * time.Millisecond},
		nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := g.Run(t.Context()); err != nil {
		t.Fatal(err)
	}
	if s := g.Stats(); s.Sent != 20 || s.Replies != 20 || s.Unsent != 0 || s.Errors != 0 {
		t.Errorf("stats %+v", s)
	}
}

func TestConfigValidate(t *testing.T) {
	good := Config{Endpoint: "ws://127.0.0.1:26657/websocket", Connections: 1, Rate: 1, Size: 1024, Duration: time.Second}
	if err := good.Validate(); err != nil {
		t.Fatal(err)
	}
	bad := Config{Endpoint: "http://x", Connections: 0, Rate: -1, Size: 1023, Duration: 0, Pacing: "sine",
		LateThreshold: -1}
	err := bad.Validate()
	for _, want := range []string{`endpoint "http://x"`, "connections 0", "rate -1", "size 1023", "duration 0s",
		`pacing "sine"`, "late threshold -1ns"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Validate() = %v, want it to name %s", err, want)
		}
	}
	if _, err := New(bad, nil, nil, nil); err == nil || !strings.HasPrefix(err.Error(), "load config: ") {
		t.Errorf("New = %v", err)
	}
}

func abs(x int) int { return max(x, -x) }

// TestRunHighRate runs where the sender never sleeps and replies are read
// by polling, kicked at each flush.
func TestRunHighRate(t *testing.T) {
	checkNoLeak(t)
	f := newFakeNode(t, nil)
	l := newLogs(t)
	g := l.generator(t, Config{Endpoint: f.endpoint(), Connections: 2, Rate: 10000, Size: 1024, Duration: 300 * time.Millisecond})
	if !g.pollReplies {
		t.Fatal("replies not polled at 10000 tx/s")
	}
	if err := g.Run(t.Context()); err != nil {
		t.Fatal(err)
	}
	l.read(t)
	l.checkSchedule(t, 2, 3000)
	if s := g.Stats(); s.Sent+s.Unsent != 6000 || s.Replies != s.Sent || len(l.replyRows) != int(s.Sent) {
		t.Errorf("stats %+v, %d replies logged", s, len(l.replyRows))
	}
}

// TestRunLargeReplies has the node answer with more bytes than the requests,
// so that polled reads must keep up or the node stops reading.
func TestRunLargeReplies(t *testing.T) {
	checkNoLeak(t)
	f := newFakeNode(t, func(f *fakeNode) { f.logPad = 8 << 10 })
	l := newLogs(t)
	g := l.generator(t, Config{Endpoint: f.endpoint(), Connections: 1, Rate: 2000, Size: 256, Duration: 500 * time.Millisecond})
	if err := g.Run(t.Context()); err != nil {
		t.Fatal(err)
	}
	l.read(t)
	l.checkSchedule(t, 1, 1000)
	if s := g.Stats(); s.Sent != 1000 || s.Replies != 1000 || s.Errors != 0 {
		t.Errorf("stats %+v", s)
	}
	if r := l.replyRows[0]; len(r.Message) != 8<<10 {
		t.Errorf("reply message of %d bytes, want %d", len(r.Message), 8<<10)
	}
}
