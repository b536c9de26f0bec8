package load

import (
	"io"
	"net"
	"os"
	"syscall"
	"unsafe"
)

// rawConn returns the raw connection of a TCP socket, or nil.
func rawConn(c net.Conn) syscall.RawConn {
	tc, ok := c.(*net.TCPConn)
	if !ok {
		return nil
	}
	raw, err := tc.SyscallConn()
	if err != nil {
		return nil
	}
	return raw
}

// setRecvLowat sets SO_RCVLOWAT: the socket is reported readable only once
// n bytes are waiting (non-blocking reads still return whatever is there).
// Lowering it reports data already waiting.
func setRecvLowat(raw syscall.RawConn, n int) {
	raw.Control(func(fd uintptr) {
		_ = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVLOWAT, n)
	})
}

// readNonblock reads what is waiting on the socket, without blocking; ok is
// false when nothing was.
func readNonblock(raw syscall.RawConn, p []byte) (n int, err error, ok bool) {
	var errno syscall.Errno
	cerr := raw.Read(func(fd uintptr) bool {
		for {
			var r uintptr
			r, _, errno = syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(unsafe.SliceData(p))), uintptr(len(p)))
			n = int(r)
			if errno != syscall.EINTR {
				return true // done, whatever happened: never wait here
			}
		}
	})
	switch {
	case cerr != nil:
		return 0, cerr, true
	case errno == syscall.EAGAIN:
		return 0, nil, false
	case errno != 0:
		return 0, &net.OpError{Op: "read", Net: "tcp", Err: os.NewSyscallError("read", errno)}, true
	case n == 0 && len(p) > 0:
		return 0, io.EOF, true
	}
	return n, nil, true
}

// writeRaw writes all of p to the non-blocking socket, calling onFull
// before it waits for room.
func writeRaw(raw syscall.RawConn, p []byte, onFull func()) error {
	var errno syscall.Errno
	err := raw.Write(func(fd uintptr) bool {
		for len(p) > 0 {
			var r uintptr
			r, _, errno = syscall.RawSyscall(syscall.SYS_WRITE, fd, uintptr(unsafe.Pointer(unsafe.SliceData(p))), uintptr(len(p)))
			switch errno {
			case 0:
				p = p[r:]
			case syscall.EINTR:
			case syscall.EAGAIN:
				errno = 0
				onFull()
				return false // wait until writable (or the write deadline)
			default:
				return true
			}
		}
		return true
	})
	if err != nil {
		return err
	}
	if errno != 0 {
		return &net.OpError{Op: "write", Net: "tcp", Err: os.NewSyscallError("write", errno)}
	}
	return nil
}
