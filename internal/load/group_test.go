package load

import (
	"maps"
	"testing"
	"time"
)

// TestGroup runs two clients as one load into one pair of logs: their
// connections are numbered apart in the logs and in the payloads, and each
// client sends its own schedule.
func TestGroup(t *testing.T) {
	checkNoLeak(t)
	f := newFakeNode(t, nil)
	l := newLogs(t)
	a := l.generator(t, Config{Endpoint: f.endpoint(), Connections: 2, Rate: 200, Size: 256, Duration: 500 * time.Millisecond})
	b := l.generator(t, Config{Endpoint: f.endpoint(), Connections: 1, Rate: 100, Size: 256, Duration: 500 * time.Millisecond, ConnOffset: 2})
	gr := Group{a, b}
	if err := gr.Run(t.Context()); err != nil {
		t.Fatal(err)
	}
	if st := gr.Stats(); st.Sent != 250 || st.Replies != 250 || st.Unsent != 0 {
		t.Errorf("stats %+v, want 250 sent and answered", st)
	}
	l.read(t)
	perConn := map[int]int{}
	for k, s := range l.sentBy {
		if s.Err != "" {
			t.Errorf("send %v: %s", k, s.Err)
		}
		perConn[int(k[0])]++
	}
	if want := map[int]int{0: 100, 1: 100, 2: 50}; !maps.Equal(perConn, want) {
		t.Errorf("sends per connection %v, want %v", perConn, want)
	}
	got, bad := f.received()
	if len(bad) > 0 {
		t.Errorf("bad requests: %q", bad)
	}
	inPayload := map[int]int{}
	for k, n := range got {
		inPayload[int(k[0])] += n
	}
	if want := map[int]int{0: 100, 1: 100, 2: 50}; !maps.Equal(inPayload, want) {
		t.Errorf("payloads per connection %v, want %v", inPayload, want)
	}
}

func TestGroupDialFails(t *testing.T) {
	checkNoLeak(t)
	f := newFakeNode(t, nil)
	l := newLogs(t)
	a := l.generator(t, Config{Endpoint: f.endpoint(), Connections: 2, Rate: 100, Size: 256, Duration: time.Second})
	b := l.generator(t, Config{Endpoint: closedPort(t), Connections: 1, Rate: 100, Size: 256, Duration: time.Second, ConnOffset: 2})
	if err := (Group{a, b}).Run(t.Context()); err == nil {
		t.Fatal("a client's endpoint is closed, yet the group ran")
	}
	if st := (Group{a, b}).Stats(); st.Sent != 0 {
		t.Errorf("sent %d before every client was connected", st.Sent)
	}
}
