package main

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/ccwallet/ccwallet/store"
)

func sqliteArgs(t *testing.T) []string {
	return []string{"--db", filepath.Join(t.TempDir(), "w.db")}
}

var plain = &http.Client{Timeout: 10 * time.Second}

func TestServeTLS(t *testing.T) {
	ca := newCA(t, "test CA")
	otherCA := newCA(t, "other CA")
	srvCert, srvKey := ca.issue(t, "ccwallet", x509.ExtKeyUsageServerAuth)
	cliCert, cliKey := ca.issue(t, "client", x509.ExtKeyUsageClientAuth)
	strangerCert, strangerKey := otherCA.issue(t, "stranger", x509.ExtKeyUsageClientAuth)
	dir := t.TempDir()
	files := map[string][]byte{"ca.pem": ca.certPEM, "server.pem": srvCert, "server.key": srvKey, "server-sec1.key": sec1(t, srvKey)}
	for name, b := range files {
		writeAt(t, filepath.Join(dir, name), b)
	}
	client, err := tls.X509KeyPair(cliCert, cliKey)
	if err != nil {
		t.Fatal(err)
	}
	stranger, err := tls.X509KeyPair(strangerCert, strangerKey)
	if err != nil {
		t.Fatal(err)
	}
	tlsBlock := func(key, extra string) string {
		return fmt.Sprintf("tls:\n  cert-chain-file: %s\n  private-key-file: %s\n%s", filepath.Join(dir, "server.pem"), filepath.Join(dir, key), extra)
	}

	t.Run("tls", func(t *testing.T) {
		cfg := writeFile(t, "v.yaml", tlsBlock("server.key", "  minimum-server-protocol-version: TLSv1.3\n"))
		s := startServe(t, append(sqliteArgs(t), "--config", cfg), nil)
		if code := call(t, tlsClient(ca, nil), "GET", "https://"+s.addrs.App+"/v0/validator-user", "", "", nil); code != 200 {
			t.Errorf("GET over TLS = %d, want 200", code)
		}
		c := tlsClient(ca, nil)
		c.Transport.(*http.Transport).TLSClientConfig.MaxVersion = tls.VersionTLS12
		if _, err := c.Get("https://" + s.addrs.App + "/livez"); err == nil {
			t.Error("TLS 1.2 client accepted, want refused (minimum TLSv1.3)")
		}
		// net/http answers plain HTTP on a TLS port with a 400.
		if code := call(t, plain, "GET", "http://"+s.addrs.App+"/livez", "", "", nil); code != http.StatusBadRequest {
			t.Errorf("plain HTTP on the TLS port = %d, want 400", code)
		}
	})

	t.Run("mtls require", func(t *testing.T) {
		cfg := writeFile(t, "v.yaml", tlsBlock("server.key", fmt.Sprintf("  trust-collection-file: %s\n  client-auth:\n    type: require\n", filepath.Join(dir, "ca.pem"))))
		s := startServe(t, append(sqliteArgs(t), "--config", cfg), nil)
		url := "https://" + s.addrs.App + "/v0/validator-user"
		if code := call(t, tlsClient(ca, &client), "GET", url, "", "", nil); code != 200 {
			t.Errorf("GET with client certificate = %d, want 200", code)
		}
		if _, err := tlsClient(ca, nil).Get(url); err == nil {
			t.Error("client without certificate accepted")
		}
		if _, err := tlsClient(ca, &stranger).Get(url); err == nil {
			t.Error("client certificate from another CA accepted")
		}
	})

	t.Run("key not pkcs8", func(t *testing.T) {
		cfg := writeFile(t, "v.yaml", tlsBlock("server-sec1.key", ""))
		_, err := tryServe(t, append(sqliteArgs(t), "--config", cfg), nil)
		if err == nil || !strings.Contains(err.Error(), "must be PKCS#8 PEM") {
			t.Fatalf("serve with a SEC 1 key: %v, want a PKCS#8 error", err)
		}
		err = run(t.Context(), []string{"config", "check", "--config", cfg}, nil, &syncBuffer{}, &syncBuffer{})
		if err == nil || !strings.Contains(err.Error(), "openssl pkcs8 -topk8") {
			t.Fatalf("config check with a SEC 1 key: %v, want the conversion hint", err)
		}
	})
}

func TestServeWalletDisabledAndHealthOff(t *testing.T) {
	cfg := writeFile(t, "v.yaml", "enableWallet: false\nenableHealthProbes: false\n")
	s := startServe(t, append(sqliteArgs(t), "--config", cfg), nil)
	if s.addrs.Health != "" {
		t.Errorf("health server listening on %s with enableHealthProbes: false", s.addrs.Health)
	}
	var e struct{ Error string }
	req, _ := http.NewRequest("GET", "http://"+s.addrs.App+"/v0/wallet/balance", nil)
	resp, err := plain.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	_ = json.NewDecoder(resp.Body).Decode(&e)
	if resp.StatusCode != 503 || !strings.Contains(e.Error, "enableWallet: false") {
		t.Errorf("wallet route with wallet disabled = %d %q, want 503 naming enableWallet", resp.StatusCode, e.Error)
	}
	if code := call(t, plain, "GET", "http://"+s.addrs.App+"/readyz", "", "", nil); code != 200 {
		t.Errorf("/readyz on the app port = %d, want 200", code)
	}
	if code := call(t, plain, "GET", "http://"+s.addrs.Metrics+"/metrics", "", "", nil); code != 200 {
		t.Errorf("/metrics = %d, want 200", code)
	}

	// Only the wallet is off: the validator's admin API and the registry
	// work, at the root and under /api/validator.
	app, admin := "http://"+s.addrs.App, devToken(t, "admin")
	for i, base := range []string{app, app + "/api/validator"} {
		user := fmt.Sprintf("carol%d", i)
		if code := call(t, plain, "POST", base+"/v0/admin/users", admin, `{"name":"`+user+`"}`, nil); code != 200 {
			t.Errorf("POST %s/v0/admin/users with the wallet off = %d, want 200", base, code)
		}
		var users struct{ Usernames []string }
		if code := call(t, plain, "GET", base+"/v0/admin/users", admin, "", &users); code != 200 || !slices.Contains(users.Usernames, user) {
			t.Errorf("GET %s/v0/admin/users with the wallet off = %d %v, want 200 with %s", base, code, users.Usernames, user)
		}
		if code := call(t, plain, "GET", base+"/v0/wallet/user-status", devToken(t, user), "", nil); code != 503 {
			t.Errorf("GET %s/v0/wallet/user-status with the wallet off = %d, want 503", base, code)
		}
	}
	for _, p := range []string{"/registry/metadata/v1/info", "/v0/scan-proxy/registry/metadata/v1/instruments", "/v0/scan-proxy/dso-party-id"} {
		if code := call(t, plain, "GET", app+p, admin, "", nil); code != 200 { // the scan proxy wants a token
			t.Errorf("GET %s with the wallet off = %d, want 200", p, code)
		}
	}
	// The network's automations run, the wallet's do not.
	var js []struct{ Name string }
	if code := call(t, plain, "GET", app+"/v0/admin/jobs", admin, "", &js); code != 200 {
		t.Fatalf("GET /v0/admin/jobs = %d", code)
	}
	var names []string
	for _, j := range js {
		names = append(names, j.Name)
	}
	if !slices.Contains(names, "round-clock") || slices.Contains(names, "collect-rewards") || slices.Contains(names, "merge-holdings") {
		t.Errorf("jobs with the wallet off = %v, want the round clock without reward collection or merges", names)
	}
	// The health port too, with its scheduler check.
	s2 := startServe(t, append(sqliteArgs(t), "--config", writeFile(t, "v.yaml", "enableWallet: false\n")), nil)
	if code := call(t, plain, "GET", "http://"+s2.addrs.Health+"/readyz", "", "", nil); code != 200 {
		t.Errorf("/readyz on the health port with the wallet off = %d, want 200", code)
	}
	// The pages are the wallet's too.
	req, _ = http.NewRequest("GET", app+"/history", nil)
	req.Header.Set("Accept", "text/html")
	page, err := plain.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(page.Body)
	page.Body.Close()
	if page.StatusCode != 503 || !strings.Contains(page.Header.Get("Content-Type"), "text/html") || !strings.Contains(string(body), "enableWallet: false") {
		t.Errorf("GET /history with the wallet off = %d %s, want a 503 page naming enableWallet", page.StatusCode, page.Header.Get("Content-Type"))
	}
}

func TestServeLogsRequestIDsAndNoSecrets(t *testing.T) {
	url := ledgertest.DBURL(t, store.Postgres)
	// The password is wrong for nothing (trust authentication) but must
	// still never be logged.
	cfg := writeFile(t, "v.yaml", "persistence:\n  password: hunter2-db-password\n")
	s := startServe(t, []string{"--config", cfg, "--log-format", "json"},
		[]string{"WALLET_DATABASE_URL=" + url, "ONBOARDING_SECRET=onboard-me-secret"})
	tok := devToken(t, "admin")
	if code := call(t, plain, "POST", "http://"+s.addrs.App+"/v0/admin/users", tok, `{"name":"alice"}`, &struct{}{}); code != 200 {
		t.Fatalf("onboard = %d", code)
	}
	call(t, plain, "GET", "http://"+s.addrs.App+"/v0/wallet/balance?token="+tok, tok, "", nil)
	s.stop(t)
	logs := s.logs.String()
	for _, secret := range []string{tok, "hunter2-db-password", "onboard-me-secret", strings.Split(tok, ".")[2]} {
		if strings.Contains(logs, secret) {
			t.Errorf("logs contain a secret %.20q...:\n%s", secret, logs)
		}
	}
	if !strings.Contains(logs, "multi-validator settings accepted but ignored") || !strings.Contains(logs, "onboardingSecret") {
		t.Errorf("logs do not say the onboarding secret is ignored by the embedded network:\n%s", logs)
	}
	requests := 0
	for line := range strings.SplitSeq(strings.TrimSpace(logs), "\n") {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("log line is not JSON: %q", line)
		}
		if rec["msg"] != "request" {
			continue
		}
		requests++
		r, _ := rec["request"].(map[string]any)
		if id, _ := r["id"].(string); id == "" {
			t.Errorf("request log line without request id: %s", line)
		}
	}
	if requests < 2 {
		t.Errorf("saw %d request log lines, want 2:\n%s", requests, logs)
	}
}

func writeAt(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}
