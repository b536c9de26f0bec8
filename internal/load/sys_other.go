//go:build !linux

package load

import (
	"errors"
	"net"
	"syscall"
)

// Elsewhere than Linux, batchConn uses the net.Conn methods: no raw system
// calls and no polled reads.

func rawConn(net.Conn) syscall.RawConn { return nil }

func setRecvLowat(syscall.RawConn, int) {}

var errNoRaw = errors.New("load: raw system calls not supported")

func readNonblock(syscall.RawConn, []byte) (int, error, bool) { return 0, errNoRaw, true }

func writeRaw(syscall.RawConn, []byte, func()) error { return errNoRaw }
