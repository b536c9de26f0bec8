package sentinel

// Pending returns the admitted broadcasts the node has not answered yet:
// queued, recovered from the spool, or in flight. A lab run waits for it
// to reach 0 after the load before it waits for the mempools.
func (s *Sentinel) Pending() int64 { return s.pending.Load() }
