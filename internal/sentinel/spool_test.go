package sentinel

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestSpoolReopen(t *testing.T) {
	dir := t.TempDir()
	sp, live, err := openSpool(dir)
	if err != nil || len(live) != 0 {
		t.Fatalf("fresh spool: %d live, %v", len(live), err)
	}
	var ids []uint64
	for i := range 100 {
		id, err := sp.Accept(fmt.Sprint("k", i%3), []byte(fmt.Sprint("tx", i)))
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	for _, id := range ids[:40] {
		sp.Forwarded(id)
	}
	// A crash: no Close. Accepted records are on disk (fsynced); the
	// forwarded ones may not be — flush them as a clean write would, then
	// tear the tail as a crash mid-write would.
	if err := sp.w.Flush(); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(filepath.Join(dir, "spool.log"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write([]byte{0, 0, 0, 50, 1, 2}); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	sp2, live, err := openSpool(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(live) != 60 {
		t.Fatalf("%d live after reopen, want 60", len(live))
	}
	for i, r := range live {
		if want := fmt.Sprint("tx", 40+i); string(r.tx) != want || r.key != fmt.Sprint("k", (40+i)%3) {
			t.Fatalf("live %d: %s/%s, want %s", i, r.key, r.tx, want)
		}
	}
	// New ids do not collide with the recovered ones.
	id, err := sp2.Accept("k", []byte("new"))
	if err != nil || id <= live[len(live)-1].id {
		t.Fatalf("new id %d after %d: %v", id, live[len(live)-1].id, err)
	}
	if err := sp2.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestSpoolRestart accepts txs into a sentinel that cannot forward them in
// time, stops it, starts another on the same spool, and checks that the
// node receives every accepted tx.
func TestSpoolRestart(t *testing.T) {
	node := newFakeNode(t)
	dir := t.TempDir()
	opts := DefaultOptions()
	opts.Spool = dir
	opts.MaxRate = 0.001 // forwards about one, then waits
	opts.DrainTimeout = 10 * time.Millisecond
	s, stop := stoppableSentinel(t, node.URL, opts)
	const n = 50
	for i := range n {
		st, _, b := post(t, "http://"+s.Addr(), txReq(i, "broadcast_tx_async", fmt.Sprint("spooled-", i)))
		if st != 200 || !strings.Contains(b, `"code":0`) {
			t.Fatalf("tx %d: %d %s", i, st, b)
		}
	}
	stop()
	before := node.broadcasts.Load()
	if before >= n {
		t.Fatalf("the first sentinel forwarded %d of %d: the test proves nothing", before, n)
	}
	opts.MaxRate = 10_000
	s2 := startSentinel(t, node.URL, opts)
	// Wait for every distinct tx: a count of broadcasts may include one
	// forwarded twice (at least once) and so reach n early.
	all := func() bool {
		for i := range n {
			if !node.received(fmt.Sprint("spooled-", i)) {
				return false
			}
		}
		return true
	}
	deadline := time.Now().Add(10 * time.Second)
	for !all() && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	// At least once: every tx reached the node (one may have twice).
	for i := range n {
		if !node.received(fmt.Sprint("spooled-", i)) {
			t.Fatalf("tx %d accepted but never forwarded (node received %d, first run %d)", i, node.broadcasts.Load(), before)
		}
	}
	if st, _ := get(t, "http://"+s2.Addr()+"/health"); st != http.StatusOK {
		t.Fatalf("health %d", st)
	}
}
