// Package testnet helps tests that need a loopback address nothing
// answers on.
package testnet

import (
	"fmt"
	"syscall"
	"testing"
)

// RefusingAddr returns a loopback address ("127.0.0.1:PORT") that refuses
// connections for the rest of the test: its port is bound by a socket
// that never listens, so a connection gets a reset, and neither the
// kernel's choice of a free port nor another process's bind can hand it
// out meanwhile. A port merely closed after a listen can be taken by any
// test running beside it, which then answers in the refused port's place.
func RefusingAddr(t testing.TB) string {
	t.Helper()
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Close(fd) })
	// No SO_REUSEADDR: a bind by another socket of the port fails.
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		t.Fatal(err)
	}
	sa, err := syscall.Getsockname(fd)
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("127.0.0.1:%d", sa.(*syscall.SockaddrInet4).Port)
}
