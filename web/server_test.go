package web

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// testPKI is a CA with a server and a client certificate, written to files.
type testPKI struct {
	dir                           string
	caFile, serverCert, serverKey string
	clientPair                    tls.Certificate
	caPool                        *x509.CertPool
}

func newTestPKI(t *testing.T) *testPKI {
	t.Helper()
	dir := t.TempDir()
	caKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	caTmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "ccwallet test CA"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	ca, _ := x509.ParseCertificate(caDER)

	issue := func(serial int64, usage x509.ExtKeyUsage, key crypto.Signer) []byte {
		tmpl := &x509.Certificate{
			SerialNumber: big.NewInt(serial),
			Subject:      pkix.Name{CommonName: "leaf"},
			NotBefore:    time.Now().Add(-time.Hour),
			NotAfter:     time.Now().Add(time.Hour),
			KeyUsage:     x509.KeyUsageDigitalSignature,
			ExtKeyUsage:  []x509.ExtKeyUsage{usage},
			IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1)},
		}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, key.Public(), caKey)
		if err != nil {
			t.Fatal(err)
		}
		return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	}
	p := &testPKI{dir: dir, caPool: x509.NewCertPool()}
	p.caPool.AddCert(ca)

	serverKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	p.caFile = writeFile(t, dir, "ca.pem", pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}))
	p.serverCert = writeFile(t, dir, "server.crt", issue(2, x509.ExtKeyUsageServerAuth, serverKey))
	p.serverKey = writeFile(t, dir, "server.key", pkcs8PEM(t, serverKey))

	clientKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	p.clientPair, err = tls.X509KeyPair(issue(3, x509.ExtKeyUsageClientAuth, clientKey), pkcs8PEM(t, clientKey))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func pkcs8PEM(t *testing.T, key crypto.Signer) []byte {
	t.Helper()
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})
}

func writeFile(t *testing.T, dir, name string, data []byte) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestTLSConfigBuild(t *testing.T) {
	p := newTestPKI(t)
	cfg, err := TLSConfig{CertChainFile: p.serverCert, PrivateKeyFile: p.serverKey}.Build()
	if err != nil {
		t.Fatal(err)
	}
	if cfg.MinVersion != tls.VersionTLS12 || cfg.ClientAuth != tls.NoClientCert || len(cfg.Certificates) != 1 {
		t.Errorf("got MinVersion %x, ClientAuth %v, %d certs", cfg.MinVersion, cfg.ClientAuth, len(cfg.Certificates))
	}

	cfg, err = TLSConfig{CertChainFile: p.serverCert, PrivateKeyFile: p.serverKey, TrustCollectionFile: p.caFile}.Build()
	if err != nil || cfg.ClientAuth != tls.VerifyClientCertIfGiven || cfg.ClientCAs == nil {
		t.Errorf("with trust collection: %v, ClientAuth %v", err, cfg.ClientAuth)
	}
	cfg, err = TLSConfig{CertChainFile: p.serverCert, PrivateKeyFile: p.serverKey, TrustCollectionFile: p.caFile, ClientAuthRequire: true}.Build()
	if err != nil || cfg.ClientAuth != tls.RequireAndVerifyClientCert {
		t.Errorf("with require: %v, ClientAuth %v", err, cfg.ClientAuth)
	}

	for in, want := range map[string]uint16{"": tls.VersionTLS12, "TLSv1.2": tls.VersionTLS12, "1.2": tls.VersionTLS12, "TLSv1.3": tls.VersionTLS13, "1.3": tls.VersionTLS13} {
		cfg, err := TLSConfig{CertChainFile: p.serverCert, PrivateKeyFile: p.serverKey, MinVersion: in}.Build()
		if err != nil || cfg.MinVersion != want {
			t.Errorf("MinVersion %q: %v, %x", in, err, cfg.MinVersion)
		}
	}
}

func TestTLSConfigBuildErrors(t *testing.T) {
	p := newTestPKI(t)
	rsaKey := testKeys().rsa
	ecKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	ecDER, _ := x509.MarshalECPrivateKey(ecKey)
	pkcs1 := writeFile(t, p.dir, "pkcs1.key", pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(rsaKey)}))
	sec1 := writeFile(t, p.dir, "sec1.key", append(
		pem.EncodeToMemory(&pem.Block{Type: "EC PARAMETERS", Bytes: []byte{6, 8, 42, 134, 72, 206, 61, 3, 1, 7}}),
		pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: ecDER})...))
	otherKey := writeFile(t, p.dir, "other.key", pkcs8PEM(t, rsaKey))
	notPEM := writeFile(t, p.dir, "junk", []byte("hello"))
	const pkcs8Msg = "private-key-file must be PKCS#8 PEM (BEGIN PRIVATE KEY); convert with: openssl pkcs8 -topk8 -nocrypt"

	tests := []struct {
		name    string
		cfg     TLSConfig
		wantMsg string
	}{
		{"PKCS#1 RSA key", TLSConfig{CertChainFile: p.serverCert, PrivateKeyFile: pkcs1}, pkcs8Msg},
		{"SEC 1 EC key", TLSConfig{CertChainFile: p.serverCert, PrivateKeyFile: sec1}, pkcs8Msg},
		{"key does not match the certificate", TLSConfig{CertChainFile: p.serverCert, PrivateKeyFile: otherKey}, "load key pair"},
		{"key file not PEM", TLSConfig{CertChainFile: p.serverCert, PrivateKeyFile: notPEM}, "holds no PEM block"},
		{"missing key file", TLSConfig{CertChainFile: p.serverCert, PrivateKeyFile: filepath.Join(p.dir, "nope")}, "read private-key-file"},
		{"no key configured", TLSConfig{CertChainFile: p.serverCert}, "both required"},
		{"require without trust", TLSConfig{CertChainFile: p.serverCert, PrivateKeyFile: p.serverKey, ClientAuthRequire: true}, "needs a trust-collection-file"},
		{"trust collection not PEM", TLSConfig{CertChainFile: p.serverCert, PrivateKeyFile: p.serverKey, TrustCollectionFile: notPEM}, "holds no PEM certificate"},
		{"TLS 1.1", TLSConfig{CertChainFile: p.serverCert, PrivateKeyFile: p.serverKey, MinVersion: "TLSv1.1"}, "unsupported minimum version"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.cfg.Build()
			if err == nil || !strings.Contains(err.Error(), tt.wantMsg) {
				t.Fatalf("err = %v, want it to contain %q", err, tt.wantMsg)
			}
		})
	}
}

// startServer runs handler with cfg via Serve and returns its URL and a
// function that stops it and returns Serve's result.
func startServer(t *testing.T, cfg ServerConfig, h http.Handler) (string, func() error) {
	t.Helper()
	srv, err := NewServer(cfg, h, discardLogger())
	if err != nil {
		t.Fatal(err)
	}
	if srv.ReadHeaderTimeout != 10*time.Second || srv.IdleTimeout != 120*time.Second {
		t.Errorf("timeouts: %s, %s", srv.ReadHeaderTimeout, srv.IdleTimeout)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, "test", srv, ln, discardLogger()) }()
	scheme := "http"
	if cfg.TLS != nil {
		scheme = "https"
	}
	var once bool
	stop := func() error {
		if once {
			return nil
		}
		once = true
		cancel()
		select {
		case err := <-done:
			return err
		case <-time.After(15 * time.Second):
			t.Fatal("Serve did not return after cancel")
			return nil
		}
	}
	t.Cleanup(func() { _ = stop() })
	return scheme + "://" + ln.Addr().String(), stop
}

func TestMTLS(t *testing.T) {
	p := newTestPKI(t)
	url, stop := startServer(t, ServerConfig{TLS: &TLSConfig{
		CertChainFile: p.serverCert, PrivateKeyFile: p.serverKey,
		TrustCollectionFile: p.caFile, ClientAuthRequire: true,
	}}, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, r.TLS.PeerCertificates[0].Subject.CommonName)
	}))

	client := func(certs ...tls.Certificate) *http.Client {
		return &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{
			TLSClientConfig: &tls.Config{RootCAs: p.caPool, Certificates: certs},
		}}
	}

	// TLS 1.3 reports a missing client certificate after the client's side
	// of the handshake, so check the request as a whole fails.
	if resp, err := client().Get(url); err == nil {
		resp.Body.Close()
		t.Fatalf("request without a client certificate got %s", resp.Status)
	}

	resp, err := client(p.clientPair).Get(url)
	if err != nil {
		t.Fatalf("request with a client certificate: %v", err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(body) != "leaf" {
		t.Errorf("got %s %q", resp.Status, body)
	}

	// A handshake with a certificate from another CA fails too.
	other := newTestPKI(t)
	if resp, err := client(other.clientPair).Get(url); err == nil {
		resp.Body.Close()
		t.Fatal("certificate from an untrusted CA accepted")
	}

	if err := stop(); err != nil {
		t.Errorf("Serve after shutdown: %v", err)
	}
}

func TestServeGracefulShutdown(t *testing.T) {
	started := make(chan struct{})
	url, stop := startServer(t, ServerConfig{}, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(started)
		time.Sleep(200 * time.Millisecond)
		_, _ = io.WriteString(w, "done")
	}))
	got := make(chan string, 1)
	go func() {
		resp, err := http.Get(url)
		if err != nil {
			got <- err.Error()
			return
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		got <- string(b)
	}()
	<-started
	if err := stop(); err != nil {
		t.Fatalf("Serve: %v", err)
	}
	if body := <-got; body != "done" {
		t.Errorf("in-flight request got %q, want it to finish", body)
	}
	if _, err := http.Get(url); err == nil {
		t.Error("server still accepts connections after shutdown")
	}
}

func TestServeReturnsListenerErrors(t *testing.T) {
	srv, _ := NewServer(ServerConfig{}, http.NotFoundHandler(), discardLogger())
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln.Close()
	if err := Serve(context.Background(), "closed", srv, ln, discardLogger()); err == nil || !strings.Contains(err.Error(), "serve closed") {
		t.Errorf("err = %v", err)
	}
}
