package main

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
)

// tlsFiles writes a test CA, a server certificate and two client
// certificates (one from another CA) with PKCS#8 keys into a directory.
type tlsFiles struct {
	ca                            *testCA
	dir                           string
	caPEM, srvCert, srvKey        string
	cliCert, cliKey               string
	strangerCert, strangerKey     string
	strangerCAPEM, notPKCS8CliKey string
}

func newTLSFiles(t *testing.T) tlsFiles {
	t.Helper()
	ca, other := newCA(t, "test CA"), newCA(t, "other CA")
	f := tlsFiles{ca: ca, dir: t.TempDir()}
	put := func(name string, b []byte) string {
		p := filepath.Join(f.dir, name)
		writeAt(t, p, b)
		return p
	}
	sc, sk := ca.issue(t, "ccwallet", x509.ExtKeyUsageServerAuth)
	cc, ck := ca.issue(t, "admin-client", x509.ExtKeyUsageClientAuth)
	xc, xk := other.issue(t, "stranger", x509.ExtKeyUsageClientAuth)
	f.caPEM, f.strangerCAPEM = put("ca.pem", ca.certPEM), put("other-ca.pem", other.certPEM)
	f.srvCert, f.srvKey = put("server.pem", sc), put("server.key", sk)
	f.cliCert, f.cliKey = put("client.pem", cc), put("client.key", ck)
	f.strangerCert, f.strangerKey = put("stranger.pem", xc), put("stranger.key", xk)
	f.notPKCS8CliKey = put("client-sec1.key", sec1(t, ck))
	return f
}

// block is a TLS block at indent 2 (under tls:, healthTls: ...), extra
// lines already indented.
func (f tlsFiles) block(extra string) string {
	return fmt.Sprintf("  cert-chain-file: %s\n  private-key-file: %s\n%s", f.srvCert, f.srvKey, extra)
}

// TestTLSConfigKeys: the seed's TLS keys are read (admin-client under
// client-auth or beside it, ciphers), and wrong values are refused naming
// the key and, for ciphers, the valid names.
func TestTLSConfigKeys(t *testing.T) {
	f := newTLSFiles(t)
	mtls := fmt.Sprintf("  trust-collection-file: %s\n  client-auth:\n    type: require\n", f.caPEM)
	admin := func(cert, key string) string {
		return fmt.Sprintf("    admin-client:\n      cert-chain-file: %s\n      private-key-file: %s\n", cert, key)
	}
	tests := []struct {
		name, values string
		want         string // "" means valid
	}{
		{"admin-client under client-auth", "tls:\n" + f.block(mtls+admin(f.cliCert, f.cliKey)), ""},
		{"admin-client beside client-auth", "tls:\n" + f.block(mtls+strings.ReplaceAll(admin(f.cliCert, f.cliKey), "    ", "  ")), ""},
		{"ciphers", "tls:\n" + f.block("  ciphers: [TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384, TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256]\n"), ""},
		{"ciphers without HTTP/2's", "tls:\n" + f.block("  ciphers: [TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384]\n"), "HTTP/2 requires one"},
		{"health and metrics", "healthTls:\n" + f.block("") + "metrics:\n  tls:\n" + strings.ReplaceAll(f.block(""), "  ", "    "), ""},
		{"unknown cipher", "tls:\n" + f.block("  ciphers: [TLS_RSA_WITH_RC4_128_SHA, FAST_ONE]\n"),
			"tls.ciphers: unknown or insecure cipher \"TLS_RSA_WITH_RC4_128_SHA\"; valid TLS 1.2 suites: TLS_"},
		{"TLS 1.3 cipher", "tls:\n" + f.block("  ciphers: [TLS_AES_256_GCM_SHA384]\n"), "Go does not let be configured"},
		{"ciphers with TLS 1.3 minimum", "tls:\n" + f.block("  minimum-server-protocol-version: TLSv1.3\n  ciphers: [TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384]\n"),
			"Go does not let TLS 1.3 suites be configured"},
		{"metrics cipher", "metrics:\n  tls:\n" + strings.ReplaceAll(f.block("  ciphers: [NOPE]\n"), "  ", "    "), "metrics.tls.ciphers: unknown"},
		{"admin-client without key", "tls:\n" + f.block(mtls+"    admin-client:\n      cert-chain-file: "+f.cliCert+"\n"), "tls.client-auth.admin-client: cert-chain-file and private-key-file are both required"},
		{"admin-client not PKCS#8", "tls:\n" + f.block(mtls+admin(f.cliCert, f.notPKCS8CliKey)), "must be PKCS#8 PEM"},
		{"admin-client the server does not trust", "tls:\n" + f.block(mtls+admin(f.strangerCert, f.strangerKey)), "is not accepted by trust-collection-file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := writeFile(t, "v.yaml", tt.values)
			var out, errb bytes.Buffer
			err := run(t.Context(), []string{"config", "check", "--config", cfg}, nil, &out, &errb)
			if tt.want == "" {
				if err != nil {
					t.Fatalf("config check: %v\n%s", err, tt.values)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("config check = %v, want an error with %q", err, tt.want)
			}
		})
	}
}

// TestServeTLSEverywhere: health and metrics serve TLS when configured,
// the cipher suites are restricted, and `ccwallet external` presents the
// admin client's certificate to a server with client-auth require.
func TestServeTLSEverywhere(t *testing.T) {
	f := newTLSFiles(t)
	values := "tls:\n" + f.block(fmt.Sprintf("  trust-collection-file: %s\n  client-auth:\n    type: require\n    admin-client:\n      cert-chain-file: %s\n      private-key-file: %s\n",
		f.caPEM, f.cliCert, f.cliKey)+"  ciphers: [TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256, TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256]\n") +
		"healthTls:\n" + f.block("") + "metrics:\n  tls:\n" + strings.ReplaceAll(f.block(""), "  ", "    ")
	cfg := writeFile(t, "v.yaml", values)
	s := startServe(t, append(sqliteArgs(t), "--config", cfg), nil)

	for name, addr := range map[string]string{"health": s.addrs.Health + "/readyz", "metrics": s.addrs.Metrics + "/metrics"} {
		if code := call(t, tlsClient(f.ca, nil), "GET", "https://"+addr, "", "", nil); code != 200 {
			t.Errorf("%s over TLS = %d, want 200", name, code)
		}
		if code := call(t, plain, "GET", "http://"+addr, "", "", nil); code != http.StatusBadRequest {
			t.Errorf("%s over plain HTTP = %d, want 400 (a TLS port)", name, code)
		}
	}

	cli, err := tls.LoadX509KeyPair(f.cliCert, f.cliKey)
	if err != nil {
		t.Fatal(err)
	}
	app := "https://" + s.addrs.App + "/v0/validator-user"
	// Only the listed TLS 1.2 suite is offered.
	c := tlsClient(f.ca, &cli)
	c.Transport.(*http.Transport).TLSClientConfig.MaxVersion = tls.VersionTLS12
	c.Transport.(*http.Transport).TLSClientConfig.CipherSuites = []uint16{tls.TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384}
	if _, err := c.Get(app); err == nil {
		t.Error("TLS 1.2 client without the configured cipher accepted")
	}
	c = tlsClient(f.ca, &cli)
	c.Transport.(*http.Transport).TLSClientConfig.MaxVersion = tls.VersionTLS12
	c.Transport.(*http.Transport).TLSClientConfig.CipherSuites = []uint16{tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256}
	if code := call(t, c, "GET", app, "", "", nil); code != 200 {
		t.Errorf("TLS 1.2 client with the configured cipher = %d, want 200", code)
	}

	// ccwallet external over mTLS: refused without a certificate, served
	// with the admin client's, from the flags or the values file.
	env := map[string]string{"CCWALLET_TOKEN": devToken(t, "admin")}
	tap := []string{"external", "tap", "--server", "https://" + s.addrs.App, "--cacert", f.caPEM, "--party", s.addrs.Operator, "--amount", "1"}
	if err := run(t.Context(), tap, environ(env), &bytes.Buffer{}, &bytes.Buffer{}); err == nil {
		t.Error("external without a client certificate was served")
	}
	if out := runCLI(t, env, append(tap, "--cert", f.cliCert, "--cert-key", f.cliKey)...); !strings.Contains(out, "contract_id") {
		t.Errorf("external with --cert = %q", out)
	}
	if out := runCLI(t, env, append(tap, "--config", cfg)...); !strings.Contains(out, "contract_id") {
		t.Errorf("external with --config = %q", out)
	}
	err = run(t.Context(), append(tap, "--cert", f.cliCert, "--cert-key", f.notPKCS8CliKey), environ(env), &bytes.Buffer{}, &bytes.Buffer{})
	if err == nil || !strings.Contains(err.Error(), "PKCS#8") {
		t.Errorf("external with a SEC 1 key = %v, want the PKCS#8 error", err)
	}
}
