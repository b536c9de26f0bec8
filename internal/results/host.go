package results

import (
	"path/filepath"
	"strconv"
)

// HostFile holds the whole host's CPU, sampled with resources.csv.
const HostFile = "host.csv"

// HostSample is one row of host.csv: the host's CPU over the interval
// before Time, from /proc/stat, beside what the testnet's processes and
// cometlab itself took in the same interval (from /proc/<pid>/stat). All
// CPU figures are in cores (1.5 = one and a half cores busy on average).
type HostSample struct {
	Time  int64   // Unix ns, the end of the interval
	Cores int     // CPUs of the host
	Busy  float64 // every CPU's time not idle, in iowait or stolen, less niced work unless cometlab runs niced (and interrupts unless the kernel charges them to tasks)
	Steal float64 // time the hypervisor gave the host's CPUs to others (0 on bare metal)
	// Testnet is the CPU of the testnet's sampled processes (nodes and their
	// apps), Harness cometlab's own.
	Testnet float64
	Harness float64
	Load1   float64 // 1-minute load average (/proc/loadavg); -1 when unread
}

// Other is the CPU that went to neither the testnet nor the harness, in
// cores (never below 0): other work on the host.
func (h *HostSample) Other() float64 { return max(0, h.Busy-h.Testnet-h.Harness) }

// HostHeader is the header row of host.csv.
const HostHeader = "time_ns,cores,busy_cores,steal_cores,testnet_cores,harness_cores,load1"

// AppendCSV appends the row (without newline).
func (h *HostSample) AppendCSV(b []byte) []byte {
	b = strconv.AppendInt(b, h.Time, 10)
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(h.Cores), 10)
	for _, v := range []float64{h.Busy, h.Steal, h.Testnet, h.Harness, h.Load1} {
		b = append(b, ',')
		b = strconv.AppendFloat(b, v, 'f', 3, 64)
	}
	return b
}

func (h *HostSample) parse(f []string) error {
	if len(f) != 7 {
		return errFields(7, f)
	}
	p := parser{f: f}
	h.Time = p.int(0)
	h.Cores = int(p.int(1))
	h.Busy, h.Steal, h.Testnet, h.Harness, h.Load1 = p.float(2), p.float(3), p.float(4), p.float(5), p.float(6)
	return p.err
}

// ReadHost reads dir/host.csv.
func ReadHost(dir string) ([]HostSample, error) {
	return readAll[HostSample](filepath.Join(dir, HostFile), HostHeader)
}
