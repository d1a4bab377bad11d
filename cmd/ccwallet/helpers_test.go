package main

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"errors"
	"io"
	"math/big"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/web"
)

// syncBuffer is a bytes.Buffer safe for the server's and the test's
// goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// testServer is `ccwallet serve` running in-process through run.
type testServer struct {
	addrs  readyAddrs
	logs   *syncBuffer
	cancel context.CancelFunc
	done   chan error
}

// startServe runs `ccwallet serve args...` with every port on 127.0.0.1:0
// unless args say otherwise, and waits until it is ready.
func startServe(t *testing.T, args []string, env []string) *testServer {
	t.Helper()
	return startServeWith(t, serveOptions{}, args, env)
}

// startServeWith is startServe with opts (opts.ready is set here).
func startServeWith(t *testing.T, opts serveOptions, args []string, env []string) *testServer {
	t.Helper()
	s, err := tryServeWith(t, opts, args, env)
	if err != nil {
		t.Fatalf("serve: %v\nlogs:\n%s", err, s.logs.String())
	}
	return s
}

func tryServe(t *testing.T, args []string, env []string) (*testServer, error) {
	t.Helper()
	return tryServeWith(t, serveOptions{}, args, env)
}

func tryServeWith(t *testing.T, opts serveOptions, args []string, env []string) (*testServer, error) {
	t.Helper()
	ready := make(chan readyAddrs, 1)
	opts.ready = func(a readyAddrs) { ready <- a }
	ctx, cancel := context.WithCancel(context.Background())
	s := &testServer{logs: &syncBuffer{}, cancel: cancel, done: make(chan error, 1)}
	full := append([]string{"--listen", "127.0.0.1:0", "--health-listen", "127.0.0.1:0", "--metrics-listen", "127.0.0.1:0", "--ledger-api-listen", "127.0.0.1:0"}, args...)
	go func() { s.done <- serve(ctx, full, newEnv(env), io.Discard, s.logs, opts) }()
	select {
	case s.addrs = <-ready:
		t.Cleanup(func() { s.stop(t) })
		return s, nil
	case err := <-s.done:
		cancel()
		return s, err
	case <-time.After(60 * time.Second):
		cancel()
		return s, errors.New("serve did not become ready within 60 s")
	}
}

// stop sends the equivalent of SIGTERM and waits for a clean exit.
func (s *testServer) stop(t *testing.T) {
	t.Helper()
	if s.cancel == nil {
		return
	}
	s.cancel()
	s.cancel = nil
	if err := <-s.done; err != nil {
		t.Errorf("serve returned %v", err)
	}
}

func devToken(t *testing.T, user string) string {
	t.Helper()
	tok, err := web.SignDevToken(devKey(), devKeyID, devIssuer, DefaultAudience, user, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// call does one JSON request and decodes the answer into out (if non-nil).
func call(t *testing.T, c *http.Client, method, url, token, body string, out any) int {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if out != nil && resp.StatusCode < 300 {
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("%s %s: decode %s: %v", method, url, b, err)
		}
	}
	if resp.StatusCode >= 300 && out != nil {
		t.Logf("%s %s: %d %s", method, url, resp.StatusCode, b)
	}
	return resp.StatusCode
}

// testCA is a certificate authority made for one test.
type testCA struct {
	cert    *x509.Certificate
	key     *ecdsa.PrivateKey
	certPEM []byte
}

func newCA(t *testing.T, name string) *testCA {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	return &testCA{cert: cert, key: key, certPEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})}
}

// issue returns a leaf certificate for 127.0.0.1 and localhost, and its
// PKCS#8 key, both PEM.
func (ca *testCA) issue(t *testing.T, cn string, usage x509.ExtKeyUsage) (certPEM, keyPEM []byte) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	serial, _ := rand.Int(rand.Reader, big.NewInt(1<<62))
	tmpl := &x509.Certificate{
		SerialNumber: serial, Subject: pkix.Name{CommonName: cn},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{usage},
		DNSNames: []string{"localhost"}, IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		t.Fatal(err)
	}
	k, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: k})
}

// sec1 converts a PKCS#8 EC key to the "EC PRIVATE KEY" form that must be
// refused.
func sec1(t *testing.T, pkcs8PEM []byte) []byte {
	t.Helper()
	b, _ := pem.Decode(pkcs8PEM)
	k, err := x509.ParsePKCS8PrivateKey(b.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalECPrivateKey(k.(*ecdsa.PrivateKey))
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: der})
}

func tlsClient(ca *testCA, cert *tls.Certificate) *http.Client {
	pool := x509.NewCertPool()
	pool.AddCert(ca.cert)
	cfg := &tls.Config{RootCAs: pool}
	if cert != nil {
		cfg.Certificates = []tls.Certificate{*cert}
	}
	return &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: cfg}}
}

// loadConfig reads the values file (if any), then the environment, then
// validates. now is the clock for the onboarding secret's lifetime.
func loadConfig(path string, env envVars, now time.Time) (Config, error) {
	cfg, err := readConfig(path, env)
	if err != nil {
		return cfg, err
	}
	return cfg, cfg.validate(now, env)
}
