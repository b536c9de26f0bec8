package experiment

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cometlab/cometlab/internal/load"
	"github.com/cometlab/cometlab/internal/results"
)

// TestRemoteLoadMerge merges two load hosts' send logs (one host's load
// failed after 2 sends, the other's log never came back) into the run's
// sent.csv and replies.csv, and records each host's share and counts.
func TestRemoteLoadMerge(t *testing.T) {
	dir := t.TempDir()
	rd, err := createRunDir(dir, results.Run{ID: "x"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	const ms = int64(time.Millisecond)
	writeHost := func(name string, sent []results.Sent, replies []results.Reply, errs []string) {
		d := filepath.Join(dir, HostsDir, name)
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		sw, err := results.Create(filepath.Join(d, results.SentFile), results.SentHeader)
		if err != nil {
			t.Fatal(err)
		}
		for i := range sent {
			sw.Write(&sent[i])
		}
		rw, err := results.Create(filepath.Join(d, results.RepliesFile), results.RepliesHeader)
		if err != nil {
			t.Fatal(err)
		}
		for i := range replies {
			rw.Write(&replies[i])
		}
		if err := sw.Close(); err != nil {
			t.Fatal(err)
		}
		if err := rw.Close(); err != nil {
			t.Fatal(err)
		}
		if err := results.WriteJSON(filepath.Join(d, results.RunFile), results.Run{ID: "x", Errors: errs}); err != nil {
			t.Fatal(err)
		}
	}
	writeHost("l1", []results.Sent{
		{Conn: 0, Seq: 0, Intended: 1000 * ms, Actual: 1000 * ms, Size: 256},
		{Conn: 1, Seq: 0, Intended: 1000 * ms, Actual: 1020 * ms, Size: 256}, // late
	}, []results.Reply{{Conn: 0, Seq: 0, At: 1001 * ms, OK: true}, {Conn: 1, Seq: 0, At: 1021 * ms, Code: -32603, Message: "mempool is full"}}, nil)
	writeHost("l2", []results.Sent{
		{Conn: 2, Seq: 0, Intended: 1000 * ms, Actual: 1001 * ms, Size: 256},
		{Conn: 2, Seq: 1, Intended: 1005 * ms, Actual: 1006 * ms, Size: 256},
		{Conn: 2, Seq: 2, Intended: 1010 * ms, Err: "connection lost"},
	}, nil, []string{"load: connection lost"})
	sent, err := results.Create(rd.path(results.SentFile), results.SentHeader)
	if err != nil {
		t.Fatal(err)
	}
	replies, err := results.Create(rd.path(results.RepliesFile), results.RepliesHeader)
	if err != nil {
		t.Fatal(err)
	}
	r := &remoteLoad{rd: rd, late: 10 * time.Millisecond, sent: sent, replies: replies, cfg: LoadHosts{Hosts: []string{"l1", "l2", "l3"}},
		hostRecs: []results.LoadHost{{Name: "l1", FirstConn: 0, Connections: 2}, {Name: "l2", FirstConn: 2, Connections: 1}, {Name: "l3", FirstConn: 3, Connections: 1}}}
	err = r.merge(nil)
	if err == nil || !strings.Contains(err.Error(), "load host l3") {
		t.Errorf("the missing log of l3: %v", err)
	}
	sent.Close()
	replies.Close()
	if st := r.Stats(); st != (load.Stats{Sent: 4, Unsent: 1, Replies: 2, Errors: 1, Late: 1}) {
		t.Errorf("stats %+v", st)
	}
	gotSent, err := results.ReadSent(dir)
	if err != nil || len(gotSent) != 5 || gotSent[4].Conn != 2 || gotSent[4].Err != "connection lost" {
		t.Errorf("merged sent.csv: %+v, %v", gotSent, err)
	}
	if gotReplies, err := results.ReadReplies(dir); err != nil || len(gotReplies) != 2 {
		t.Errorf("merged replies.csv: %+v, %v", gotReplies, err)
	}
	recs := rd.run.LoadHosts
	if len(recs) != 3 || recs[0].Sent != 2 || recs[0].Error != "" || recs[1].Sent != 2 || recs[1].Unsent != 1 ||
		recs[1].Error != "load: connection lost" || !strings.Contains(recs[2].Error, "send log") {
		t.Errorf("run.json load_hosts: %+v", recs)
	}
}

func TestWaitStart(t *testing.T) {
	lp := &pipeline{out: NewPrinter(nil)}
	if err := lp.waitStart(t.Context()); err != nil {
		t.Errorf("no start time: %v", err)
	}
	lp.send.startAt = time.Now().Add(-2 * time.Second)
	if err := lp.waitStart(t.Context()); err == nil || !strings.Contains(err.Error(), "started late") {
		t.Errorf("2 s late: %v", err)
	}
	lp.send.startAt = time.Now().Add(-500 * time.Millisecond)
	if err := lp.waitStart(t.Context()); err != nil {
		t.Errorf("0.5 s late is within the second: %v", err)
	}
	lp.send.startAt = time.Now().Add(100 * time.Millisecond)
	if err := lp.waitStart(t.Context()); err != nil || time.Now().Before(lp.send.startAt) {
		t.Errorf("returned before the start time: %v", err)
	}
}
