package experiment

import (
	"os"
	"strings"
	"syscall"
)

// hostMemory is the machine's total memory in bytes (0 when unknown).
func hostMemory() int64 {
	var si syscall.Sysinfo_t
	if syscall.Sysinfo(&si) != nil {
		return 0
	}
	return int64(si.Totalram) * int64(si.Unit)
}

// hostKernel is the running kernel's release ("" when unknown).
func hostKernel() string {
	b, err := os.ReadFile("/proc/sys/kernel/osrelease")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// hostCPUModel is the processor's model name, the first "model name" of
// /proc/cpuinfo ("" when unknown, as on arm64 kernels that name none).
func hostCPUModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return ""
	}
	for line := range strings.Lines(string(b)) {
		key, value, ok := strings.Cut(line, ":")
		if ok && strings.TrimSpace(key) == "model name" {
			return strings.Join(strings.Fields(value), " ")
		}
	}
	return ""
}
