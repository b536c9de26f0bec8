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
