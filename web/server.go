package web

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"slices"
	"strings"
	"time"
)

// ServerConfig describes one listening server (API/UI, health, metrics).
// TLS nil means plain HTTP, e.g. behind a TLS-terminating proxy.
type ServerConfig struct {
	Addr string
	TLS  *TLSConfig
	// Limits bound a slow or greedy client (slowclients.go); the
	// connection cap applies to the listener given to Serve through
	// LimitConns.
	Limits ClientLimits
}

// TLSConfig names the PEM files of a TLS server, mirroring the Canton/Splice
// settings (cert-chain-file, private-key-file, trust-collection-file,
// client-auth require, minimum protocol version) so operators can reuse the
// files they already have.
type TLSConfig struct {
	CertChainFile       string // leaf certificate first, then intermediates
	PrivateKeyFile      string // PKCS#8 PEM ("BEGIN PRIVATE KEY")
	TrustCollectionFile string // CA certificates that may sign client certificates
	ClientAuthRequire   bool   // mTLS: refuse clients without a valid certificate
	MinVersion          string // "TLSv1.2" (default), "TLSv1.3", "1.2" or "1.3"
	// CipherSuites restricts the TLS 1.2 suites, by IANA name (Canton's
	// ciphers); empty keeps Go's defaults. See ParseCipherSuites.
	CipherSuites []string
	// AdminClient is the certificate our own clients (ccwallet external)
	// present under client-auth require (Canton's client-auth.admin-client).
	// Build checks that it loads and that the trust collection accepts it,
	// so a deployment cannot lock its own tools out.
	AdminClient *ClientCert
}

// ClientCert names a client certificate's PEM files.
type ClientCert struct {
	CertChainFile  string // leaf first, then intermediates
	PrivateKeyFile string // PKCS#8 PEM
}

// Load reads the pair, refusing a key that is not PKCS#8.
func (c ClientCert) Load() (tls.Certificate, error) {
	return loadKeyPair(c.CertChainFile, c.PrivateKeyFile)
}

// Build loads the files and returns the server's tls.Config.
//
// The private key must be PKCS#8. Canton (Netty) only reads PKCS#8, so
// accepting PKCS#1/SEC 1 here would let a key work with the wallet and then
// fail on the participant; refusing early with the conversion command is
// kinder.
func (c TLSConfig) Build() (*tls.Config, error) {
	if c.CertChainFile == "" || c.PrivateKeyFile == "" {
		return nil, errors.New("tls: cert-chain-file and private-key-file are both required")
	}
	minVersion, err := ParseTLSVersion(c.MinVersion)
	if err != nil {
		return nil, err
	}
	suites, err := ParseCipherSuites(c.CipherSuites, minVersion)
	if err != nil {
		return nil, err
	}
	cert, err := loadKeyPair(c.CertChainFile, c.PrivateKeyFile)
	if err != nil {
		return nil, err
	}
	cfg := &tls.Config{
		Certificates: []tls.Certificate{cert},
		MinVersion:   minVersion,
		CipherSuites: suites,
	}
	if c.TrustCollectionFile != "" {
		pool, err := loadCertPool(c.TrustCollectionFile)
		if err != nil {
			return nil, err
		}
		cfg.ClientCAs = pool
		// Without "require", a client certificate is still verified when
		// one is offered: a bad certificate must never be silently ignored.
		cfg.ClientAuth = tls.VerifyClientCertIfGiven
	}
	if c.ClientAuthRequire {
		if cfg.ClientCAs == nil {
			return nil, errors.New("tls: client-auth require needs a trust-collection-file to verify client certificates against")
		}
		cfg.ClientAuth = tls.RequireAndVerifyClientCert
	}
	if c.AdminClient != nil {
		if err := c.AdminClient.check(cfg.ClientCAs); err != nil {
			return nil, err
		}
	}
	return cfg, nil
}

// check loads the admin client's pair and verifies it against the server's
// client CAs (when it has any).
func (c ClientCert) check(cas *x509.CertPool) error {
	cert, err := c.Load()
	if err != nil {
		return fmt.Errorf("tls: client-auth.admin-client: %w", err)
	}
	if cas == nil {
		return nil
	}
	inter := x509.NewCertPool()
	for _, der := range cert.Certificate[1:] {
		if ic, err := x509.ParseCertificate(der); err == nil {
			inter.AddCert(ic)
		}
	}
	_, err = cert.Leaf.Verify(x509.VerifyOptions{Roots: cas, Intermediates: inter, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}})
	if err != nil {
		return fmt.Errorf("tls: client-auth.admin-client %s is not accepted by trust-collection-file: %w", c.CertChainFile, err)
	}
	return nil
}

// loadKeyPair reads a certificate chain and its PKCS#8 key.
func loadKeyPair(certFile, keyFile string) (tls.Certificate, error) {
	certPEM, err := os.ReadFile(certFile)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("tls: read cert-chain-file: %w", err)
	}
	keyPEM, err := os.ReadFile(keyFile)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("tls: read private-key-file: %w", err)
	}
	if err := checkPKCS8(keyPEM, keyFile); err != nil {
		return tls.Certificate{}, err
	}
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("tls: load key pair %s, %s: %w", certFile, keyFile, err)
	}
	return cert, nil
}

// ClientTLS is the tls.Config of a client of our servers: CAFile (PEM)
// verifies the server instead of the system roots when set, and Cert is
// presented for client-auth require when set.
func ClientTLS(caFile string, cert *ClientCert) (*tls.Config, error) {
	cfg := &tls.Config{MinVersion: tls.VersionTLS12}
	if caFile != "" {
		pool, err := loadCertPool(caFile)
		if err != nil {
			return nil, err
		}
		cfg.RootCAs = pool
	}
	if cert != nil {
		c, err := cert.Load()
		if err != nil {
			return nil, err
		}
		cfg.Certificates = []tls.Certificate{c}
	}
	return cfg, nil
}

// ParseCipherSuites maps IANA suite names to Go's IDs. Only Go's secure
// TLS 1.2 suites can be chosen: Go does not let TLS 1.3 suites be
// configured (all three are always on under TLS 1.3), so naming one, or
// any suite with a TLS 1.3 minimum, is an error that says so.
func ParseCipherSuites(names []string, minVersion uint16) ([]uint16, error) {
	if len(names) == 0 {
		return nil, nil
	}
	var valid []string
	byName := map[string]uint16{}
	for _, cs := range tls.CipherSuites() {
		if slices.Contains(cs.SupportedVersions, tls.VersionTLS12) {
			byName[cs.Name] = cs.ID
			valid = append(valid, cs.Name)
		}
	}
	tls13 := map[string]bool{}
	for _, cs := range tls.CipherSuites() {
		if !slices.Contains(cs.SupportedVersions, tls.VersionTLS12) {
			tls13[cs.Name] = true
		}
	}
	if minVersion >= tls.VersionTLS13 {
		return nil, errors.New("tls: ciphers restrict TLS 1.2 suites only, and minimum-server-protocol-version is TLSv1.3: " +
			"Go does not let TLS 1.3 suites be configured (TLS_AES_128_GCM_SHA256, TLS_AES_256_GCM_SHA384 and TLS_CHACHA20_POLY1305_SHA256 are always on); remove ciphers")
	}
	ids := make([]uint16, 0, len(names))
	for _, n := range names {
		id, ok := byName[n]
		switch {
		case ok:
			ids = append(ids, id)
		case tls13[n]:
			return nil, fmt.Errorf("tls: cipher %s is a TLS 1.3 suite, which Go does not let be configured (TLS 1.3's suites are always on); list TLS 1.2 suites only: %s",
				n, strings.Join(valid, ", "))
		default:
			return nil, fmt.Errorf("tls: unknown or insecure cipher %q; valid TLS 1.2 suites: %s", n, strings.Join(valid, ", "))
		}
	}
	// net/http refuses to serve HTTP/2 (and so to start) without one.
	if !slices.Contains(ids, tls.TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256) && !slices.Contains(ids, tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256) {
		return nil, errors.New("tls: ciphers must include TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256 or TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256 (HTTP/2 requires one)")
	}
	return ids, nil
}

// checkPKCS8 looks at the first key block so a PKCS#1/SEC 1 key gets an
// actionable message instead of crypto/tls's generic one.
func checkPKCS8(keyPEM []byte, path string) error {
	rest := keyPEM
	for {
		var block *pem.Block
		block, rest = pem.Decode(rest)
		if block == nil {
			return fmt.Errorf("tls: private-key-file %s holds no PEM block", path)
		}
		switch block.Type {
		case "EC PARAMETERS": // printed by `openssl ecparam -genkey` before the key
			continue
		case "PRIVATE KEY":
			if _, err := x509.ParsePKCS8PrivateKey(block.Bytes); err != nil {
				return fmt.Errorf("tls: parse private-key-file %s: %w", path, err)
			}
			return nil
		case "RSA PRIVATE KEY", "EC PRIVATE KEY":
			return fmt.Errorf("tls: private-key-file must be PKCS#8 PEM (BEGIN PRIVATE KEY); "+
				"convert with: openssl pkcs8 -topk8 -nocrypt -in %s -out key.pk8.pem (%s holds %q)", path, path, block.Type)
		case "ENCRYPTED PRIVATE KEY":
			return fmt.Errorf("tls: private-key-file %s is encrypted; decrypt it with: openssl pkcs8 -nocrypt -in %s -out key.pk8.pem", path, path)
		default:
			return fmt.Errorf("tls: private-key-file %s holds a %q block, want PRIVATE KEY", path, block.Type)
		}
	}
}

func loadCertPool(path string) (*x509.CertPool, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("tls: read trust-collection-file: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(data) {
		return nil, fmt.Errorf("tls: trust-collection-file %s holds no PEM certificate", path)
	}
	return pool, nil
}

// ParseTLSVersion reads minimum-server-protocol-version ("" is TLS 1.2).
func ParseTLSVersion(s string) (uint16, error) {
	switch s {
	case "", "TLSv1.2", "1.2":
		return tls.VersionTLS12, nil
	case "TLSv1.3", "1.3":
		return tls.VersionTLS13, nil
	default:
		return 0, fmt.Errorf("tls: unsupported minimum version %q (want TLSv1.2 or TLSv1.3)", s)
	}
}

// Server timeouts. There is no WriteTimeout (it would cut server-sent event
// streams) and no ReadTimeout (its deadline would cancel an SSE stream's
// context); the header timeout stops slowloris, a body deadline
// (bodyDeadline) slow bodies, and DecodeJSON bounds body size.
const (
	maxHeaderBytes  = 64 << 10 // room for an 8 KiB JWT plus cookies
	shutdownTimeout = 10 * time.Second
	// maxStreamsPerConn is how many requests one HTTP/2 connection may
	// have running at once (net/http's default is 250).
	maxStreamsPerConn = 100
)

// NewServer returns an http.Server for cfg with our timeouts, TLS (when
// configured) and net/http's own error log routed to log.
func NewServer(cfg ServerConfig, h http.Handler, log *slog.Logger) (*http.Server, error) {
	lim := cfg.Limits.withDefaults()
	srv := &http.Server{
		Addr:              cfg.Addr,
		Handler:           Guard(lim, h),
		ReadHeaderTimeout: lim.HeaderReadTimeout,
		IdleTimeout:       lim.IdleTimeout,
		MaxHeaderBytes:    maxHeaderBytes,
		// A TLS listener offers HTTP/2: fewer streams at once than
		// net/http's 250, and a connection whose socket takes no bytes
		// for the stall timeout is closed.
		HTTP2:    &http.HTTP2Config{MaxConcurrentStreams: maxStreamsPerConn, WriteByteTimeout: lim.WriteStallTimeout},
		ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	if cfg.TLS != nil {
		tlsCfg, err := cfg.TLS.Build()
		if err != nil {
			return nil, fmt.Errorf("server %s: %w", cfg.Addr, err)
		}
		srv.TLSConfig = tlsCfg
	}
	return srv, nil
}

// Serve runs srv on ln until ctx is done, then shuts it down gracefully,
// giving in-flight requests 10 s before connections are closed. It serves
// TLS when srv.TLSConfig is set. It returns nil after a clean shutdown.
// Long-lived handlers (SSE) do not end by themselves: they should stop on a
// signal registered with srv.RegisterOnShutdown, or they hold the shutdown
// for the full 10 s.
func Serve(ctx context.Context, name string, srv *http.Server, ln net.Listener, log *slog.Logger) error {
	// Read before serving: net/http rewrites srv.TLSConfig (HTTP/2 setup)
	// from the serving goroutine.
	useTLS := srv.TLSConfig != nil
	errc := make(chan error, 1)
	go func() {
		if useTLS {
			errc <- srv.ServeTLS(ln, "", "")
		} else {
			errc <- srv.Serve(ln)
		}
	}()
	log.Info("server listening", "server", name, "addr", ln.Addr().String(), "tls", useTLS)

	select {
	case err := <-errc:
		if errors.Is(err, http.ErrServerClosed) {
			return nil
		}
		return fmt.Errorf("serve %s: %w", name, err)
	case <-ctx.Done():
	}

	shutdownCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), shutdownTimeout)
	defer cancel()
	log.Info("server shutting down", "server", name)
	if err := srv.Shutdown(shutdownCtx); err != nil {
		_ = srv.Close()
		return fmt.Errorf("shut down %s: %w", name, err)
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serve %s: %w", name, err)
	}
	return nil
}
