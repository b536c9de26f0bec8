package sentinel

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"sync"
)

// The spool is an append-only log in DIR/spool.log of two kinds of record:
//
//	accepted:  a broadcast_tx_async tx the sentinel acknowledged
//	forwarded: the node answered for accepted record <id>
//
// Each record is framed as len(4, big endian) crc32(4) body, the body being
// kind(1) id(8) and, for an accepted record, keylen(uvarint) key tx. A torn
// or corrupt tail (a crash mid-write) ends the log; it is cut off at open.
//
// Fsync policy: an accepted record is fsynced before the client's
// acknowledgement is sent (group commit: one fsync covers every record
// appended while the previous fsync ran), so an acknowledged tx survives a
// crash of the sentinel or of the machine. Forwarded records are not
// fsynced: after a crash some forwarded txs may be forwarded again, which
// the node's mempool cache answers "tx already exists in cache" — delivery
// is at least once. At open the live records (accepted, not forwarded) are
// rewritten to a fresh log, and the log is restarted whenever it holds
// nothing live and has grown past spoolRestart bytes.
type spool struct {
	path string

	mu      sync.Mutex
	cond    *sync.Cond
	f       *os.File
	w       *bufio.Writer
	size    int64
	live    int    // accepted, not yet forwarded
	nextID  uint64 // the next record id
	gen     uint64 // appended batches so far (the batch being filled is gen+1)
	synced  uint64 // batches fsynced
	syncing bool
	err     error // the first write or fsync error; the spool refuses from then on
}

// spoolRestart is the size past which an empty log starts afresh.
const spoolRestart = 64 << 20

const (
	recAccepted  = 'A'
	recForwarded = 'F'
)

// spooled is a live record found at open.
type spooled struct {
	id  uint64
	key string
	tx  []byte
}

// openSpool opens (or creates) the spool in dir and returns its live
// records, oldest first.
func openSpool(dir string) (*spool, []spooled, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, nil, fmt.Errorf("spool: %w", err)
	}
	path := filepath.Join(dir, "spool.log")
	live, next, err := readSpool(path)
	if err != nil {
		return nil, nil, err
	}
	// Rewrite the live records to a fresh log, then swap it in.
	tmp := path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, nil, fmt.Errorf("spool: %w", err)
	}
	s := &spool{path: path, f: f, w: bufio.NewWriterSize(f, 256<<10), nextID: next}
	s.cond = sync.NewCond(&s.mu)
	for _, r := range live {
		s.append(recAccepted, r.id, r.key, r.tx)
	}
	s.live = len(live)
	if err := errors.Join(s.w.Flush(), f.Sync(), os.Rename(tmp, path), syncDir(dir)); err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("spool: %w", err)
	}
	return s, live, nil
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// readSpool reads the log at path (missing: empty) and returns its live
// records and the next free id.
func readSpool(path string) ([]spooled, uint64, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, 1, nil
	}
	if err != nil {
		return nil, 0, fmt.Errorf("spool: %w", err)
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 256<<10)
	var (
		order []uint64
		recs  = map[uint64]spooled{}
		next  = uint64(1)
		head  [8]byte
	)
	for {
		if _, err := io.ReadFull(r, head[:]); err != nil {
			break // the end, or a torn header
		}
		n, sum := binary.BigEndian.Uint32(head[:4]), binary.BigEndian.Uint32(head[4:])
		if n < 9 || n > 64<<20 {
			break
		}
		body := make([]byte, n)
		if _, err := io.ReadFull(r, body); err != nil || crc32.ChecksumIEEE(body) != sum {
			break
		}
		id := binary.BigEndian.Uint64(body[1:9])
		next = max(next, id+1)
		switch body[0] {
		case recAccepted:
			kl, k := binary.Uvarint(body[9:])
			if k <= 0 || uint64(len(body)-9-k) < kl {
				return nil, 0, fmt.Errorf("spool %s: record %d: bad key length", path, id)
			}
			key := string(body[9+k : 9+k+int(kl)])
			recs[id] = spooled{id: id, key: key, tx: body[9+k+int(kl):]}
			order = append(order, id)
		case recForwarded:
			delete(recs, id)
		default:
			return nil, 0, fmt.Errorf("spool %s: record %d: unknown kind %q", path, id, body[0])
		}
	}
	var live []spooled
	for _, id := range order {
		if r, ok := recs[id]; ok {
			live = append(live, r)
			delete(recs, id)
		}
	}
	return live, next, nil
}

// append writes one record into the buffer; s.mu must be held.
func (s *spool) append(kind byte, id uint64, key string, tx []byte) {
	body := make([]byte, 0, 9+binary.MaxVarintLen64+len(key)+len(tx))
	body = append(body, kind)
	body = binary.BigEndian.AppendUint64(body, id)
	if kind == recAccepted {
		body = binary.AppendUvarint(body, uint64(len(key)))
		body = append(append(body, key...), tx...)
	}
	var head [8]byte
	binary.BigEndian.PutUint32(head[:4], uint32(len(body)))
	binary.BigEndian.PutUint32(head[4:], crc32.ChecksumIEEE(body))
	if _, err := s.w.Write(head[:]); err != nil && s.err == nil {
		s.err = err
	}
	if _, err := s.w.Write(body); err != nil && s.err == nil {
		s.err = err
	}
	s.size += int64(len(head) + len(body))
}

// Accept appends an accepted record and returns once it is on disk.
func (s *spool) Accept(key string, tx []byte) (uint64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return 0, s.err
	}
	id := s.nextID
	s.nextID++
	s.append(recAccepted, id, key, tx)
	s.live++
	want := s.gen + 1
	for s.synced < want && s.err == nil {
		if s.syncing {
			s.cond.Wait()
			continue
		}
		// Lead a group commit: everything appended so far goes in it.
		s.syncing = true
		s.gen++
		g := s.gen
		err := s.w.Flush()
		s.mu.Unlock()
		if err == nil {
			err = s.f.Sync()
		}
		s.mu.Lock()
		s.syncing = false
		if err != nil && s.err == nil {
			s.err = fmt.Errorf("spool: %w", err)
		}
		s.synced = g
		s.cond.Broadcast()
	}
	if s.synced < want {
		return 0, s.err
	}
	return id, nil
}

// Forwarded appends a forwarded record for id (not fsynced), and restarts
// the log once it holds nothing live and is large.
func (s *spool) Forwarded(id uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil || s.syncing {
		if s.err == nil {
			s.append(recForwarded, id, "", nil)
			s.live--
		}
		return
	}
	s.append(recForwarded, id, "", nil)
	s.live--
	if s.live == 0 && s.size > spoolRestart {
		if err := errors.Join(s.w.Flush(), s.f.Truncate(0)); err != nil {
			s.err = fmt.Errorf("spool: %w", err)
			return
		}
		if _, err := s.f.Seek(0, io.SeekStart); err != nil {
			s.err = fmt.Errorf("spool: %w", err)
		}
		s.size = 0
	}
}

// Close flushes and closes the log.
func (s *spool) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for s.syncing {
		s.cond.Wait()
	}
	return errors.Join(s.w.Flush(), s.f.Sync(), s.f.Close())
}
