package main

import (
	"context"
	"crypto/x509"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/store/pgtest"
)

// sslCluster starts a private Postgres serving TLS with a certificate
// issued by ca: the files are written into the data directory as the
// server's user, then ssl is switched on with ALTER SYSTEM and a reload.
func sslCluster(t *testing.T, ca *testCA) *pgtest.Cluster {
	t.Helper()
	ctx := t.Context()
	c, err := pgtest.Start(ctx)
	if err != nil {
		t.Fatalf("start postgres: %v", err)
	}
	t.Cleanup(c.Stop)
	if c.DataDir() == "" {
		t.Fatal("the SSL test needs a private cluster (unset " + pgtest.EnvURL + ")")
	}
	cert, key := ca.issue(t, "postgres", x509.ExtKeyUsageServerAuth)
	for name, b := range map[string][]byte{"server.crt": cert, "server.key": key} {
		p := filepath.Join(c.DataDir(), name)
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		if cred := c.RunAs(); cred != nil {
			if err := os.Chown(p, int(cred.Uid), int(cred.Gid)); err != nil {
				t.Fatal(err)
			}
		}
	}
	admin, err := sql.Open("pgx", c.URL("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	for _, q := range []string{"ALTER SYSTEM SET ssl = on", "SELECT pg_reload_conf()", "CREATE DATABASE wallet"} {
		if _, err := admin.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		var on string
		conn, err := admin.Conn(ctx)
		if err == nil {
			err = conn.QueryRowContext(ctx, "SHOW ssl").Scan(&on)
			conn.Close()
		}
		if on == "on" {
			return c
		}
		if time.Now().After(deadline) {
			t.Fatalf("postgres did not turn ssl on (%v); log %s", err, c.LogPath())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func TestPostgresSSL(t *testing.T) {
	ca := newCA(t, "postgres test CA")
	otherCA := newCA(t, "other CA")
	c := sslCluster(t, ca)
	dir := t.TempDir()
	writeAt(t, filepath.Join(dir, "ca.pem"), ca.certPEM)
	writeAt(t, filepath.Join(dir, "other.pem"), otherCA.certPEM)

	values := func(ssl string) string {
		return fmt.Sprintf("persistence:\n  host: 127.0.0.1\n  port: %d\n  databaseName: wallet\n  user: postgres\n%s", c.Port(), ssl)
	}
	tests := []struct {
		name    string
		ssl     string
		wantErr string
	}{
		{"verify-ca", fmt.Sprintf("  sslmode: verify-ca\n  sslrootcert: %s\n", filepath.Join(dir, "ca.pem")), ""},
		{"ssl true is verify-full", fmt.Sprintf("  ssl: true\n  sslrootcert: %s\n", filepath.Join(dir, "ca.pem")), ""},
		{"verify-ca with the wrong root", fmt.Sprintf("  sslmode: verify-ca\n  sslrootcert: %s\n", filepath.Join(dir, "other.pem")), "certificate"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfgPath := writeFile(t, "v.yaml", values(tt.ssl))
			var out syncBuffer
			err := run(t.Context(), []string{"migrate", "--config", cfgPath}, nil, &out, &syncBuffer{})
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("migrate = %v, want an error about %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("migrate over SSL: %v", err)
			}
			// The same configuration's connection really is encrypted.
			cfg, err := loadConfig(cfgPath, nil, time.Now())
			if err != nil {
				t.Fatal(err)
			}
			url, err := cfg.DatabaseURL(func(string) string { return "" })
			if err != nil {
				t.Fatal(err)
			}
			db, err := sql.Open("pgx", url)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
			defer cancel()
			var ssl bool
			if err := db.QueryRowContext(ctx, "SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()").Scan(&ssl); err != nil {
				t.Fatal(err)
			}
			if !ssl {
				t.Error("connection is not encrypted")
			}
		})
	}
}
