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
	"time"
)

// ServerConfig describes one listening server (API/UI, health, metrics).
// TLS nil means plain HTTP, e.g. behind a TLS-terminating proxy.
type ServerConfig struct {
	Addr string
	TLS  *TLSConfig
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
	minVersion, err := parseTLSVersion(c.MinVersion)
	if err != nil {
		return nil, err
	}
	certPEM, err := os.ReadFile(c.CertChainFile)
	if err != nil {
		return nil, fmt.Errorf("tls: read cert-chain-file: %w", err)
	}
	keyPEM, err := os.ReadFile(c.PrivateKeyFile)
	if err != nil {
		return nil, fmt.Errorf("tls: read private-key-file: %w", err)
	}
	if err := checkPKCS8(keyPEM, c.PrivateKeyFile); err != nil {
		return nil, err
	}
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return nil, fmt.Errorf("tls: load key pair %s, %s: %w", c.CertChainFile, c.PrivateKeyFile, err)
	}
	cfg := &tls.Config{
		Certificates: []tls.Certificate{cert},
		MinVersion:   minVersion,
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
	return cfg, nil
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

func parseTLSVersion(s string) (uint16, error) {
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
// streams) and no ReadTimeout (it would also bound slow but legitimate
// bodies); ReadHeaderTimeout stops slowloris and DecodeJSON bounds body size.
const (
	readHeaderTimeout = 10 * time.Second
	idleTimeout       = 120 * time.Second
	maxHeaderBytes    = 64 << 10 // room for an 8 KiB JWT plus cookies
	shutdownTimeout   = 10 * time.Second
)

// NewServer returns an http.Server for cfg with our timeouts, TLS (when
// configured) and net/http's own error log routed to log.
func NewServer(cfg ServerConfig, h http.Handler, log *slog.Logger) (*http.Server, error) {
	srv := &http.Server{
		Addr:              cfg.Addr,
		Handler:           h,
		ReadHeaderTimeout: readHeaderTimeout,
		IdleTimeout:       idleTimeout,
		MaxHeaderBytes:    maxHeaderBytes,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
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
