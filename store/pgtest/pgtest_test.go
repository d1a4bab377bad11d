package pgtest

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

var cluster *Cluster

func TestMain(m *testing.M) {
	flag.Parse()
	start := time.Now()
	c, err := Start(context.Background())
	if err != nil {
		// Never skip: a missing PostgreSQL is a broken setup (`make deps`).
		fmt.Fprintln(os.Stderr, "pgtest:", err)
		os.Exit(1)
	}
	if testing.Verbose() {
		fmt.Printf("cluster started in %s (bin %s, port %d, external %v)\n",
			time.Since(start).Round(time.Millisecond), c.BinDir(), c.Port(), c.external)
	}
	cluster = c
	code := m.Run()
	c.Stop()
	os.Exit(code)
}

func open(t *testing.T, url string) *sql.DB {
	t.Helper()
	db, err := sql.Open("pgx", url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func count(t *testing.T, db *sql.DB) int {
	t.Helper()
	var n int
	if err := db.QueryRow("SELECT count(*) FROM accounts").Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func migrateAccounts(ctx context.Context, url string) error {
	db, err := sql.Open("pgx", url)
	if err != nil {
		return err
	}
	defer db.Close()
	_, err = db.ExecContext(ctx, `
		CREATE TABLE accounts (id bigserial PRIMARY KEY, name text NOT NULL UNIQUE);
		INSERT INTO accounts (name) VALUES ('seed');`)
	return err
}

// templateOnce creates the shared template "accounts" once for all tests.
var templateOnce = sync.OnceValue(func() error {
	return cluster.CreateTemplate(context.Background(), "accounts", migrateAccounts)
})

func TestTemplateAndClones(t *testing.T) {
	ctx := t.Context()
	if err := templateOnce(); err != nil {
		t.Fatal(err)
	}

	start := time.Now()
	url1, drop1, err := cluster.CloneDB(ctx, "accounts")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("clone in %s", time.Since(start).Round(time.Millisecond))
	defer drop1()
	url2, drop2, err := cluster.CloneDB(ctx, "accounts")
	if err != nil {
		t.Fatal(err)
	}
	defer drop2()
	if url1 == url2 {
		t.Fatalf("two clones share a URL: %s", url1)
	}

	db1, db2 := open(t, url1), open(t, url2)
	if n1, n2 := count(t, db1), count(t, db2); n1 != 1 || n2 != 1 {
		t.Fatalf("clones start with %d and %d rows, want the template's 1", n1, n2)
	}
	if _, err := db1.Exec("INSERT INTO accounts (name) VALUES ('alice'), ('bob')"); err != nil {
		t.Fatal(err)
	}
	if _, err := db2.Exec("DELETE FROM accounts"); err != nil {
		t.Fatal(err)
	}
	if n1, n2 := count(t, db1), count(t, db2); n1 != 3 || n2 != 0 {
		t.Fatalf("after writes: clone1 has %d rows (want 3), clone2 %d (want 0)", n1, n2)
	}

	// The template is untouched: a third clone starts from the seed again.
	url3, drop3, err := cluster.CloneDB(ctx, "accounts")
	if err != nil {
		t.Fatal(err)
	}
	defer drop3()
	if n := count(t, open(t, url3)); n != 1 {
		t.Fatalf("third clone has %d rows, want 1", n)
	}

	// drop ends open connections and removes the database; twice is fine.
	name1 := dbName(url1)
	drop1()
	drop1()
	if exists(t, name1) {
		t.Fatalf("database %s still exists after drop", name1)
	}
	if err := db1.Ping(); err == nil {
		t.Fatal("connection to a dropped clone still works")
	}
	if !exists(t, dbName(url2)) {
		t.Fatal("dropping one clone dropped the other")
	}
}

func TestTemplateRefusesConnections(t *testing.T) {
	if err := templateOnce(); err != nil {
		t.Fatal(err)
	}
	name := cluster.templates["accounts"]
	if err := open(t, cluster.URL(name)).Ping(); err == nil {
		t.Fatal("could connect to the template; connections would break CloneDB")
	}
	if err := cluster.CreateTemplate(t.Context(), "accounts", nil); err == nil {
		t.Fatal("creating the same template twice succeeded")
	}
	// A failed migration leaves nothing behind, so it can be retried.
	boom := func(ctx context.Context, url string) error { return fmt.Errorf("boom") }
	if err := cluster.CreateTemplate(t.Context(), "broken", boom); err == nil || !strings.Contains(err.Error(), "boom") {
		t.Fatalf("CreateTemplate with a failing migration: %v", err)
	}
	if exists(t, "broken") {
		t.Fatal("a failed template was left behind")
	}
	if err := cluster.CreateTemplate(t.Context(), "broken", migrateAccounts); err != nil {
		t.Fatalf("retry after a failed migration: %v", err)
	}
}

func TestConcurrentClones(t *testing.T) {
	if err := templateOnce(); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Go(func() {
			url, drop, err := cluster.CloneDB(t.Context(), "accounts")
			if err != nil {
				errs <- err
				return
			}
			defer drop()
			db, err := sql.Open("pgx", url)
			if err != nil {
				errs <- err
				return
			}
			defer db.Close()
			_, err = db.Exec("INSERT INTO accounts (name) VALUES ('x')")
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
}

func TestStopStartServer(t *testing.T) {
	if err := templateOnce(); err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	url, drop, err := cluster.CloneDB(ctx, "accounts")
	if err != nil {
		t.Fatal(err)
	}
	defer drop()
	db := open(t, url)
	if _, err := db.Exec("INSERT INTO accounts (name) VALUES ('before')"); err != nil {
		t.Fatal(err)
	}
	port := cluster.Port()

	if err := cluster.StopServer(); err != nil {
		t.Fatal(err)
	}
	if err := db.PingContext(ctx); err == nil {
		t.Fatal("ping works while the server is stopped")
	}
	if _, _, err := cluster.CloneDB(ctx, "accounts"); err == nil {
		t.Fatal("CloneDB works while the server is stopped")
	}

	start := time.Now()
	if err := cluster.StartServer(ctx); err != nil {
		t.Fatal(err)
	}
	t.Logf("restart in %s", time.Since(start).Round(time.Millisecond))
	if err := cluster.StartServer(ctx); err != nil { // already running: no-op
		t.Fatal(err)
	}
	if cluster.Port() != port {
		t.Fatalf("port changed from %d to %d", port, cluster.Port())
	}
	// The same pool reconnects; committed data survived.
	var n int
	if err := db.QueryRowContext(ctx, "SELECT count(*) FROM accounts WHERE name = 'before'").Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 1 {
		t.Fatalf("found %d rows written before the restart, want 1", n)
	}
	// Cloning works again after the restart.
	_, drop2, err := cluster.CloneDB(ctx, "accounts")
	if err != nil {
		t.Fatal(err)
	}
	drop2()
}

func TestRunAsTools(t *testing.T) {
	if os.Geteuid() == 0 {
		if cred := cluster.RunAs(); cred == nil || cred.Uid == 0 {
			t.Fatalf("running as root but RunAs = %+v", cred)
		}
	} else if cluster.RunAs() != nil {
		t.Fatal("RunAs is set although not root")
	}
	// By hand: RunAs needs a working directory the postgres user can enter.
	cmd := exec.Command(filepath.Join(cluster.BinDir(), "psql"), "-XAtc", "SELECT current_user", cluster.URL("postgres"))
	cmd.Dir = "/"
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cluster.RunAs()}
	out, err := cmd.CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "postgres" {
		t.Fatalf("psql: %v: %s", err, out)
	}
	// With Command, on a database cloned from template1.
	url, drop, err := cluster.CloneDB(t.Context(), "template1")
	if err != nil {
		t.Fatal(err)
	}
	defer drop()
	out, err = cluster.Command(t.Context(), "pgbench", "-i", "-s", "1", "-q", url).CombinedOutput()
	if err != nil {
		t.Fatalf("pgbench -i: %v: %s", err, out)
	}
	out, err = cluster.Command(t.Context(), "pgbench", "-c", "4", "-t", "20", "-n", url).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "number of failed transactions: 0") {
		t.Fatalf("pgbench: %v: %s", err, out)
	}
	if cluster.DataDir() == "" || !strings.HasPrefix(cluster.DataDir(), cluster.dir) {
		t.Fatalf("DataDir = %q", cluster.DataDir())
	}
	if want := fmt.Sprintf("postgres://postgres@127.0.0.1:%d/x?sslmode=disable", cluster.Port()); cluster.URL("x") != want {
		t.Fatalf("URL = %q, want %q", cluster.URL("x"), want)
	}
}

// TestExternalServer points WALLET_TEST_DATABASE_URL at the private cluster.
func TestExternalServer(t *testing.T) {
	ctx := t.Context()
	t.Setenv(EnvURL, cluster.URL("postgres"))
	ext, err := Start(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer ext.Stop()
	if !ext.external || ext.Port() != cluster.Port() || ext.DataDir() != "" || ext.RunAs() != nil {
		t.Fatalf("external cluster: external=%v port=%d datadir=%q runas=%v",
			ext.external, ext.Port(), ext.DataDir(), ext.RunAs())
	}
	if ext.StopServer() == nil || ext.StartServer(ctx) == nil {
		t.Fatal("StopServer/StartServer must fail with an existing server")
	}
	if err := ext.CreateTemplate(ctx, "accounts", migrateAccounts); err != nil {
		t.Fatal(err)
	}
	tpl := ext.templates["accounts"]
	if !strings.HasPrefix(tpl, fmt.Sprintf("accounts_p%d_", os.Getpid())) {
		t.Fatalf("template name %q lacks the per-process suffix", tpl)
	}
	url, _, err := ext.CloneDB(ctx, "accounts")
	if err != nil {
		t.Fatal(err)
	}
	if n := count(t, open(t, url)); n != 1 {
		t.Fatalf("clone has %d rows, want 1", n)
	}
	clone := dbName(url)

	ext.Stop() // drops the template and the clone left behind, not the server
	ext.Stop()
	if exists(t, tpl) || exists(t, clone) {
		t.Fatal("Stop left the template or the clone behind")
	}
	if err := open(t, cluster.URL("postgres")).Ping(); err != nil {
		t.Fatalf("Stop of an external cluster hurt the server: %v", err)
	}
}

func TestBadBinDir(t *testing.T) {
	t.Setenv(EnvURL, "")
	t.Setenv(EnvBinDir, "/nonexistent")
	if _, err := Start(t.Context()); err == nil || !strings.Contains(err.Error(), EnvBinDir) {
		t.Fatalf("Start with a bad %s: %v", EnvBinDir, err)
	}
}

func dbName(url string) string {
	s := url[strings.LastIndex(url, "/")+1:]
	if i := strings.IndexByte(s, '?'); i >= 0 {
		s = s[:i]
	}
	return s
}

func exists(t *testing.T, name string) bool {
	t.Helper()
	var ok bool
	err := open(t, cluster.URL("postgres")).QueryRow(
		"SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", name).Scan(&ok)
	if err != nil {
		t.Fatal(err)
	}
	return ok
}

// TestClustersStartFromPristineCopies: a second private cluster starts
// from a copy of the pristine data directory, not from the first
// cluster's: what the first one created is not in it, and its data
// directory is private to the server's user, as initdb leaves it.
func TestClustersStartFromPristineCopies(t *testing.T) {
	if cluster.external {
		t.Skip("an existing server (WALLET_TEST_DATABASE_URL) has no private data directory")
	}
	ctx := context.Background()
	if _, err := open(t, cluster.URL("postgres")).ExecContext(ctx, "CREATE DATABASE only_in_the_first"); err != nil {
		t.Fatal(err)
	}
	c2, err := Start(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Stop()
	var n int
	if err := open(t, c2.URL("postgres")).QueryRowContext(ctx,
		"SELECT count(*) FROM pg_database WHERE datname = 'only_in_the_first'").Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Error("the second cluster has the first one's database")
	}
	st, err := os.Stat(c2.DataDir())
	if err != nil {
		t.Fatal(err)
	}
	if perm := st.Mode().Perm(); perm&0o077 != 0 {
		t.Errorf("data directory mode %v, want no access for others", perm)
	}
	if _, err := os.Stat(filepath.Join(c2.DataDir(), "PG_VERSION")); err != nil {
		t.Errorf("no PG_VERSION in the copy: %v", err)
	}
}
