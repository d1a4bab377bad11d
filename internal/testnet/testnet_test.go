package testnet_test

import (
	"errors"
	"net"
	"syscall"
	"testing"

	"github.com/ccwallet/ccwallet/internal/testnet"
)

// TestRefusingAddr: a connection to the address is refused, and the port
// cannot be listened on while the test runs.
func TestRefusingAddr(t *testing.T) {
	addr := testnet.RefusingAddr(t)
	if c, err := net.Dial("tcp", addr); err == nil {
		c.Close()
		t.Fatalf("%s accepted a connection", addr)
	} else if !errors.Is(err, syscall.ECONNREFUSED) {
		t.Fatalf("dial %s: %v, want connection refused", addr, err)
	}
	if ln, err := net.Listen("tcp", addr); err == nil {
		ln.Close()
		t.Fatalf("%s could be listened on while reserved", addr)
	}
}
