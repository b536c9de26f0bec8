package links

import (
	"bufio"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// procNetTCP is the kernel's table of IPv4 TCP sockets (Linux).
const procNetTCP = "/proc/net/tcp"

// dialler finds which of the processes pids (pid → name) holds the other
// end of conn, a connection a relay accepted on loopback: the socket whose
// local address is conn's remote one and whose remote address is conn's
// local one, found in /proc/net/tcp by its inode, then among each
// process's open files (/proc/PID/fd). It returns "" when no process of
// pids holds it (or on a system without /proc).
func dialler(conn net.Conn, pids map[int]string) string {
	local, remote := addrPort(conn.RemoteAddr()), addrPort(conn.LocalAddr())
	if !local.IsValid() || !remote.IsValid() {
		return ""
	}
	inode, err := socketInode(procNetTCP, local, remote)
	if err != nil || inode == "" {
		return ""
	}
	want := "socket:[" + inode + "]"
	for pid, name := range pids {
		fds, err := os.ReadDir(filepath.Join("/proc", strconv.Itoa(pid), "fd"))
		if err != nil {
			continue
		}
		for _, fd := range fds {
			if l, err := os.Readlink(filepath.Join("/proc", strconv.Itoa(pid), "fd", fd.Name())); err == nil && l == want {
				return name
			}
		}
	}
	return ""
}

func addrPort(a net.Addr) netip.AddrPort {
	t, ok := a.(*net.TCPAddr)
	if !ok {
		return netip.AddrPort{}
	}
	return t.AddrPort()
}

// socketInode returns the inode of the socket from local to remote in the
// table at path (/proc/net/tcp's format: "sl local rem st … uid timeout
// inode", addresses as hex IPv4 in host byte order, a colon, hex port);
// "" when there is none.
func socketInode(path string, local, remote netip.AddrPort) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	l, r := procAddr(local), procAddr(remote)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) >= 10 && fs[1] == l && fs[2] == r {
			return fs[9], nil
		}
	}
	return "", sc.Err()
}

// procAddr writes a as /proc/net/tcp does: the IPv4 address's 32 bits in
// the machine's byte order (little-endian on x86 and arm64: 127.0.0.1 is
// 0100007F) as hex, a colon, the port as 4 hex digits.
func procAddr(a netip.AddrPort) string {
	ip := a.Addr().Unmap().As4()
	var b [4]byte
	binary.NativeEndian.PutUint32(b[:], binary.BigEndian.Uint32(ip[:]))
	return fmt.Sprintf("%s:%04X", strings.ToUpper(hex.EncodeToString(b[:])), a.Port())
}
