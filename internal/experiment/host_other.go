//go:build !linux

package experiment

// hostMemory is unknown off Linux: run.json records 0.
func hostMemory() int64 { return 0 }

// hostKernel is unknown off Linux: run.json records "".
func hostKernel() string { return "" }

// hostCPUModel is unknown off Linux: run.json records "".
func hostCPUModel() string { return "" }
