// Package pgtest runs a private, throw-away PostgreSQL cluster for tests.
//
// It uses the PostgreSQL server binaries installed on the machine (run
// `make deps` to install them) and has no dependency besides the pgx
// database/sql driver. Start a cluster once per test package (in TestMain),
// migrate a template database once with CreateTemplate, and give every test
// its own database with CloneDB, which copies the template in about a tenth
// of a second:
//
//	var cluster *pgtest.Cluster
//
//	func TestMain(m *testing.M) {
//		ctx := context.Background()
//		c, err := pgtest.Start(ctx)
//		if err != nil {
//			fmt.Fprintln(os.Stderr, err)
//			os.Exit(1)
//		}
//		if err := c.CreateTemplate(ctx, "wallet", migrate); err != nil {
//			c.Stop()
//			fmt.Fprintln(os.Stderr, err)
//			os.Exit(1)
//		}
//		cluster = c
//		code := m.Run()
//		c.Stop()
//		os.Exit(code)
//	}
//
//	func TestSomething(t *testing.T) {
//		url, drop, err := cluster.CloneDB(t.Context(), "wallet")
//		if err != nil {
//			t.Fatal(err)
//		}
//		t.Cleanup(drop)
//		...
//	}
//
// # Private cluster
//
// Start finds the binaries (env PG_BINDIR, then `pg_config --bindir`, then
// the newest /usr/lib/postgresql/*/bin), makes a short temporary directory,
// gives it a data directory made by initdb (trust authentication, user
// "postgres", no fsync; initdb runs once per machine and binaries, and
// later clusters copy a pristine copy of its output) and starts
// postgres on a free TCP port of 127.0.0.1, with its unix socket in the same
// directory. initdb refuses to run as root, so when the test runs as root the
// directory is given to the OS user "postgres" and initdb and postgres run as
// that user (see RunAs). The server log is kept in the directory and its tail
// is included in errors. Stop kills the server and removes the directory.
//
// # Existing server (WALLET_TEST_DATABASE_URL)
//
// When the environment variable WALLET_TEST_DATABASE_URL holds a
// postgres:// URL, Start starts nothing and uses that server instead. Its
// user must be allowed to create databases (CREATEDB) and should be a
// superuser, so that leftover connections to templates and clones can be
// terminated. URL keeps the user, password, host and query parameters of that
// URL and only replaces the database name. Template databases created by
// CreateTemplate get a per-process suffix ("<name>_p<pid>_<random>") so that
// several test processes can share the server; CloneDB accepts the short name.
// Stop drops the templates and the clones this process created and leaves
// the server running. StopServer and StartServer are not supported; DataDir
// is empty, RunAs is nil and BinDir is the local binaries' directory if there
// is one.
package pgtest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx"
)

// EnvURL names the environment variable that points the tests at an existing
// server instead of a private cluster.
const EnvURL = "WALLET_TEST_DATABASE_URL"

// EnvBinDir names the environment variable that overrides where the
// PostgreSQL binaries are.
const EnvBinDir = "PG_BINDIR"

// readyTimeout bounds how long Start and StartServer wait for the server to
// accept connections.
const readyTimeout = 30 * time.Second

// Cluster is a PostgreSQL server for tests: a private one started by Start,
// or an existing one named by WALLET_TEST_DATABASE_URL. Its methods are safe
// for concurrent use.
type Cluster struct {
	binDir string
	// private cluster
	dir     string // temp dir: data/, the unix socket, postgres.log
	dataDir string
	logPath string
	port    int
	cred    *syscall.Credential
	// existing server
	external bool
	base     *url.URL

	mu        sync.Mutex
	proc      *exec.Cmd
	exited    chan struct{} // closed when proc has exited
	admin     *sql.DB       // pool on the maintenance database; nil until needed
	version   int           // server_version_num
	templates map[string]string
	clones    map[string]bool
	stopped   bool
	durable   bool // see SetDurable
}

// Start starts a private cluster, or connects to the server named by
// WALLET_TEST_DATABASE_URL when that is set. It fails, never skips, when the
// PostgreSQL binaries are missing: run `make deps` to install them.
func Start(ctx context.Context) (*Cluster, error) {
	if raw := os.Getenv(EnvURL); raw != "" {
		return startExternal(ctx, raw)
	}
	binDir, err := findBinDir()
	if err != nil {
		return nil, err
	}
	c := &Cluster{binDir: binDir, templates: map[string]string{}, clones: map[string]bool{}}
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			return nil, fmt.Errorf("pgtest: running as root, and initdb refuses root: need the OS user \"postgres\" (the Debian postgresql package creates it; run `make deps`): %w", err)
		}
		uid, err1 := strconv.ParseUint(u.Uid, 10, 32)
		gid, err2 := strconv.ParseUint(u.Gid, 10, 32)
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("pgtest: user postgres has a non-numeric uid/gid %q/%q", u.Uid, u.Gid)
		}
		c.cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
	}
	if c.dir, err = makeDir(c.cred); err != nil {
		return nil, err
	}
	c.dataDir = filepath.Join(c.dir, "data")
	c.logPath = filepath.Join(c.dir, "postgres.log")

	if err := c.initdb(ctx); err != nil {
		os.RemoveAll(c.dir)
		return nil, err
	}
	// Another process may take the free port between our probe and the
	// server's bind: try a few ports.
	for attempt := 0; ; attempt++ {
		if c.port, err = freePort(); err == nil {
			err = c.startServer(ctx)
		}
		if err == nil || !errors.Is(err, errPortInUse) || attempt == 4 {
			break
		}
	}
	if err != nil {
		c.Stop()
		return nil, err
	}
	return c, nil
}

// URL returns the URL of database db on the cluster, for example
// postgres://postgres@127.0.0.1:PORT/db?sslmode=disable.
func (c *Cluster) URL(db string) string {
	if c.external {
		u := *c.base
		u.Path = "/" + db
		u.RawPath = ""
		return u.String()
	}
	u := url.URL{
		Scheme:   "postgres",
		User:     url.User("postgres"),
		Host:     net.JoinHostPort("127.0.0.1", strconv.Itoa(c.port)),
		Path:     "/" + db,
		RawQuery: "sslmode=disable",
	}
	return u.String()
}

// BinDir is the directory of the PostgreSQL binaries (pgbench, psql, ...).
// With an existing server it is the local binaries' directory, or "" when
// there are none.
func (c *Cluster) BinDir() string { return c.binDir }

// Port is the server's TCP port on 127.0.0.1 (the URL's port with an existing
// server).
func (c *Cluster) Port() int { return c.port }

// DataDir is the cluster's data directory ("" with an existing server).
func (c *Cluster) DataDir() string { return c.dataDir }

// RunAs is the OS user the server runs as when the test runs as root, for
// running other PostgreSQL tools the same way (exec.Cmd.SysProcAttr =
// &syscall.SysProcAttr{Credential: c.RunAs()}). It is nil when not root and
// with an existing server.
func (c *Cluster) RunAs() *syscall.Credential {
	if c.cred == nil {
		return nil
	}
	cred := *c.cred
	return &cred
}

// Command prepares the PostgreSQL tool name (pgbench, psql, pg_dump, ...)
// from BinDir to run like the server: as RunAs, in the cluster's directory
// (the postgres user may not be able to enter the test's working
// directory), without the caller's PG* and locale environment variables.
// Pass it a URL from URL. It is killed with SIGQUIT if the test process
// dies.
func (c *Cluster) Command(ctx context.Context, name string, args ...string) *exec.Cmd {
	return c.command(ctx, name, args...)
}

// LogPath is the server log file ("" with an existing server).
func (c *Cluster) LogPath() string { return c.logPath }

// Stop stops a private cluster and removes its directory. With an existing
// server it drops the templates and clones this process created and leaves
// the server running. It may be called more than once.
func (c *Cluster) Stop() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stopped {
		return
	}
	if c.external {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		for db := range c.clones {
			_ = c.dropLocked(ctx, db)
		}
		for _, db := range c.templates {
			_ = c.dropLocked(ctx, db)
		}
		c.stopped = true
		c.closeAdminLocked()
		return
	}
	c.stopped = true
	c.closeAdminLocked()
	// SIGQUIT is an immediate shutdown: nothing is worth saving.
	_ = c.stopLocked(syscall.SIGQUIT)
	if c.dir != "" {
		os.RemoveAll(c.dir)
	}
}

// StopServer stops the server process (a fast shutdown: sessions are
// terminated, clients see connection errors) and keeps the data directory,
// so that StartServer can start it again. It is for outage tests.
func (c *Cluster) StopServer() error {
	if c.external {
		return errors.New("pgtest: StopServer is not supported with an existing server (" + EnvURL + ")")
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stopped {
		return errors.New("pgtest: cluster is stopped")
	}
	c.closeAdminLocked()
	return c.stopLocked(syscall.SIGINT)
}

// SetDurable chooses the durability of the next StartServer: on runs
// with fsync, synchronous_commit and full_page_writes on, as a production
// server does (benchmarks measure both); off is the tests' default.
func (c *Cluster) SetDurable(on bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.durable = on
}

// StartServer starts the server again after StopServer, on the same port and
// data directory, and waits until it accepts connections. It does nothing
// when the server is running.
func (c *Cluster) StartServer(ctx context.Context) error {
	if c.external {
		return errors.New("pgtest: StartServer is not supported with an existing server (" + EnvURL + ")")
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stopped {
		return errors.New("pgtest: cluster is stopped")
	}
	if c.proc != nil {
		select {
		case <-c.exited:
		default:
			return nil // running
		}
	}
	return c.startServerLocked(ctx)
}

// CreateTemplate creates database name, calls migrate with its URL, then
// closes every connection to it and turns it into a template that CloneDB
// copies. migrate should close its connections; any left open are
// terminated. With an existing server the database's real name gets a
// per-process suffix (see the package documentation).
func (c *Cluster) CreateTemplate(ctx context.Context, name string, migrate func(ctx context.Context, url string) error) error {
	if name == "" {
		return errors.New("pgtest: empty template name")
	}
	dbName := name
	if c.external {
		dbName = fmt.Sprintf("%s_p%d_%s", name, os.Getpid(), randomHex(3))
	}
	if len(dbName) > 63 {
		return fmt.Errorf("pgtest: database name %q is longer than 63 bytes", dbName)
	}
	c.mu.Lock()
	if _, dup := c.templates[name]; dup {
		c.mu.Unlock()
		return fmt.Errorf("pgtest: template %q already created", name)
	}
	c.mu.Unlock()

	db, err := c.adminDB(ctx)
	if err != nil {
		return err
	}
	if _, err := db.ExecContext(ctx, "CREATE DATABASE "+quoteIdent(dbName)); err != nil {
		return c.errorf("create template database %s: %w", dbName, err)
	}
	c.mu.Lock()
	c.templates[name] = dbName
	c.mu.Unlock()
	if migrate != nil {
		if err := migrate(ctx, c.URL(dbName)); err != nil {
			c.mu.Lock()
			delete(c.templates, name)
			_ = c.dropLocked(context.WithoutCancel(ctx), dbName)
			c.mu.Unlock()
			return fmt.Errorf("pgtest: migrate template %s: %w", name, err)
		}
	}
	// Refuse new connections first, then end the ones left open: CREATE
	// DATABASE ... TEMPLATE fails while anyone is connected to the template.
	if _, err := db.ExecContext(ctx, "ALTER DATABASE "+quoteIdent(dbName)+" WITH IS_TEMPLATE true ALLOW_CONNECTIONS false"); err != nil {
		return c.errorf("mark %s as template: %w", dbName, err)
	}
	if err := terminate(ctx, db, dbName); err != nil {
		return c.errorf("close connections to template %s: %w", dbName, err)
	}
	return nil
}

// CloneDB creates a new database t_<random> as a copy of template (a name
// given to CreateTemplate, or any database nobody is connected to) and
// returns its URL and a function that drops it, terminating its connections
// first. drop may be called more than once and ignores errors.
func (c *Cluster) CloneDB(ctx context.Context, template string) (dbURL string, drop func(), err error) {
	c.mu.Lock()
	dbName, ok := c.templates[template]
	c.mu.Unlock()
	if !ok {
		dbName = template
	}
	db, err := c.adminDB(ctx)
	if err != nil {
		return "", nil, err
	}
	name := "t_" + randomHex(8)
	stmt := "CREATE DATABASE " + quoteIdent(name) + " TEMPLATE " + quoteIdent(dbName)
	// A connection that was just terminated may still be leaving the
	// template: PostgreSQL waits 5 s for it, retry a little beyond that.
	for attempt := 0; ; attempt++ {
		_, err = db.ExecContext(ctx, stmt)
		if err == nil || attempt == 2 || !strings.Contains(err.Error(), "being accessed by other users") {
			break
		}
	}
	if err != nil {
		return "", nil, c.errorf("clone %s: %w", dbName, err)
	}
	c.mu.Lock()
	c.clones[name] = true
	c.mu.Unlock()
	var once sync.Once
	drop = func() {
		once.Do(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			c.mu.Lock()
			defer c.mu.Unlock()
			if c.stopped || !c.clones[name] {
				return
			}
			delete(c.clones, name)
			_ = c.dropLocked(ctx, name)
		})
	}
	return c.URL(name), drop, nil
}

// ----------------------------------------------------------------------------
// Server process

var errPortInUse = errors.New("port in use")

// initdb gives the cluster a fresh data directory: a copy of the
// machine's pristine one (pristine.go), made by initdb on first use.
func (c *Cluster) initdb(ctx context.Context) error {
	src, err := c.pristine(ctx)
	if err != nil {
		return err
	}
	return copyTree(src, c.dataDir, c.cred)
}

// runInitdb runs initdb into dataDir.
func (c *Cluster) runInitdb(ctx context.Context, dataDir string) error {
	cmd := c.command(ctx, "initdb", initdbArgs(dataDir)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("pgtest: initdb: %w\n%s", err, tail(out, 4096))
	}
	return nil
}

func initdbArgs(dataDir string) []string {
	return []string{"-D", dataDir, "-U", "postgres", "-A", "trust", "--no-sync", "-E", "UTF8", "--locale=C"}
}

func (c *Cluster) startServer(ctx context.Context) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.startServerLocked(ctx)
}

func (c *Cluster) startServerLocked(ctx context.Context) error {
	logFile, err := os.OpenFile(c.logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("pgtest: server log: %w", err)
	}
	defer logFile.Close() // the child has its own copy
	// Not tied to ctx: the server outlives the call that starts it.
	args := []string{
		"-D", c.dataDir,
		"-k", c.dir,
		"-p", strconv.Itoa(c.port),
		"-c", "listen_addresses=127.0.0.1",
		"-c", "max_connections=300",
		"-c", "shared_buffers=128MB",
	}
	if !c.durable {
		// Tests need no durability; command-line settings also override
		// ALTER SYSTEM, so SetDurable restarts the server to change them.
		args = append(args, "-F", "-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off")
	}
	cmd := c.command(context.Background(), "postgres", args...)
	cmd.Stdout = logFile
	cmd.Stderr = logFile
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("pgtest: start postgres: %w", err)
	}
	exited := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(exited)
	}()
	c.proc, c.exited = cmd, exited

	if err := c.waitReady(ctx, exited); err != nil {
		_ = c.stopLocked(syscall.SIGQUIT)
		log := c.logTail()
		if strings.Contains(log, "could not bind") || strings.Contains(log, "already in use") {
			err = fmt.Errorf("%w (%w)", err, errPortInUse)
		}
		return fmt.Errorf("%w\nserver log %s:\n%s", err, c.logPath, log)
	}
	return nil
}

// waitReady polls until the server accepts a connection, and checks that it
// is this cluster's server and not another one on the same port.
func (c *Cluster) waitReady(ctx context.Context, exited <-chan struct{}) error {
	ctx, cancel := context.WithTimeout(ctx, readyTimeout)
	defer cancel()
	db, err := sql.Open("pgx", c.URL("postgres")+"&connect_timeout=2")
	if err != nil {
		return fmt.Errorf("pgtest: %w", err)
	}
	defer db.Close()
	var lastErr error
	for {
		select {
		case <-exited:
			return fmt.Errorf("pgtest: postgres exited during startup (%s)", c.proc.ProcessState)
		default:
		}
		var dataDir string
		lastErr = db.QueryRowContext(ctx, "SELECT current_setting('data_directory')").Scan(&dataDir)
		if lastErr == nil {
			if dataDir != c.dataDir {
				return fmt.Errorf("pgtest: port %d answers for another cluster (%s) (%w)", c.port, dataDir, errPortInUse)
			}
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("pgtest: postgres not ready after %s: %w", readyTimeout, lastErr)
		case <-exited:
		case <-time.After(25 * time.Millisecond):
		}
	}
}

// stopLocked signals the server and waits for it to exit, killing it after
// 30 s.
func (c *Cluster) stopLocked(sig syscall.Signal) error {
	if c.proc == nil {
		return nil
	}
	proc, exited := c.proc, c.exited
	c.proc, c.exited = nil, nil
	select {
	case <-exited:
		return nil
	default:
	}
	if err := proc.Process.Signal(sig); err != nil {
		return fmt.Errorf("pgtest: signal postgres: %w", err)
	}
	select {
	case <-exited:
		return nil
	case <-time.After(30 * time.Second):
		_ = proc.Process.Kill()
		<-exited
		return fmt.Errorf("pgtest: postgres did not stop within 30 s, killed it\n%s", c.logTail())
	}
}

// command prepares a PostgreSQL binary to run as the cluster's OS user in
// the cluster's directory, without the caller's PG* environment.
func (c *Cluster) command(ctx context.Context, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, filepath.Join(c.binDir, name), args...)
	cmd.Dir = c.dir
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "PG") && !strings.HasPrefix(kv, "LC_") && !strings.HasPrefix(kv, "LANG") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, "LC_ALL=C")
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Credential: c.RunAs(),
		// If the test process dies without Stop, take the server down
		// with it (SIGQUIT: immediate shutdown, backends exit too).
		Pdeathsig: syscall.SIGQUIT,
	}
	return cmd
}

func (c *Cluster) logTail() string {
	f, err := os.Open(c.logPath)
	if err != nil {
		return "(no server log: " + err.Error() + ")"
	}
	defer f.Close()
	const max = 4096
	if st, err := f.Stat(); err == nil && st.Size() > max {
		_, _ = f.Seek(st.Size()-max, io.SeekStart)
	}
	b, _ := io.ReadAll(f)
	return string(tail(b, max))
}

// errorf wraps a database error, adding the server log's tail for a private
// cluster.
func (c *Cluster) errorf(format string, args ...any) error {
	err := fmt.Errorf("pgtest: "+format, args...)
	if c.external {
		return err
	}
	return fmt.Errorf("%w\nserver log %s:\n%s", err, c.logPath, c.logTail())
}

// ----------------------------------------------------------------------------
// Administration

// adminDB returns the pool on the maintenance database, opening it if needed.
func (c *Cluster) adminDB(ctx context.Context) (*sql.DB, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.adminLocked(ctx)
}

func (c *Cluster) adminLocked(ctx context.Context) (*sql.DB, error) {
	if c.stopped {
		return nil, errors.New("pgtest: cluster is stopped")
	}
	if c.admin != nil {
		return c.admin, nil
	}
	adminURL := c.URL("postgres")
	if c.external {
		adminURL = c.base.String()
	}
	db, err := sql.Open("pgx", adminURL)
	if err != nil {
		return nil, fmt.Errorf("pgtest: %w", err)
	}
	db.SetMaxIdleConns(4)
	var version int
	if err := db.QueryRowContext(ctx, "SELECT current_setting('server_version_num')::int").Scan(&version); err != nil {
		db.Close()
		return nil, c.errorf("connect to %s: %w", redact(adminURL), err)
	}
	c.admin, c.version = db, version
	return db, nil
}

func (c *Cluster) closeAdminLocked() {
	if c.admin != nil {
		c.admin.Close()
		c.admin = nil
	}
}

// dropLocked drops database name (a template too), ending its connections.
func (c *Cluster) dropLocked(ctx context.Context, name string) error {
	db, err := c.adminLocked(ctx)
	if err != nil {
		return err
	}
	q := quoteIdent(name)
	// A template cannot be dropped; connections must be refused before
	// the remaining ones are ended.
	if _, err := db.ExecContext(ctx, "ALTER DATABASE "+q+" WITH IS_TEMPLATE false ALLOW_CONNECTIONS false"); err != nil {
		return err
	}
	if c.version >= 130000 {
		_, err := db.ExecContext(ctx, "DROP DATABASE IF EXISTS "+q+" WITH (FORCE)")
		return err
	}
	for attempt := 0; attempt < 3; attempt++ {
		if err = terminate(ctx, db, name); err != nil {
			return err
		}
		if _, err = db.ExecContext(ctx, "DROP DATABASE IF EXISTS "+q); err == nil {
			return nil
		}
	}
	return err
}

// terminate ends every other session connected to database name.
func terminate(ctx context.Context, db *sql.DB, name string) error {
	_, err := db.ExecContext(ctx,
		"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()",
		name)
	return err
}

// ----------------------------------------------------------------------------
// Helpers

func startExternal(ctx context.Context, raw string) (*Cluster, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		return nil, fmt.Errorf("pgtest: %s must be a postgres:// URL", EnvURL)
	}
	if u.Path == "" || u.Path == "/" {
		u.Path = "/postgres"
	}
	c := &Cluster{external: true, base: u, templates: map[string]string{}, clones: map[string]bool{}}
	c.binDir, _ = findBinDir()
	c.port = 5432
	if p, err := strconv.Atoi(u.Port()); err == nil {
		c.port = p
	}
	if _, err := c.adminDB(ctx); err != nil {
		return nil, fmt.Errorf("%w (from %s)", err, EnvURL)
	}
	return c, nil
}

// findBinDir finds the PostgreSQL server binaries.
func findBinDir() (string, error) {
	has := func(dir string) bool {
		for _, b := range []string{"initdb", "postgres"} {
			if st, err := os.Stat(filepath.Join(dir, b)); err != nil || st.IsDir() {
				return false
			}
		}
		return true
	}
	if dir := os.Getenv(EnvBinDir); dir != "" {
		if !has(dir) {
			return "", fmt.Errorf("pgtest: %s=%s has no initdb and postgres", EnvBinDir, dir)
		}
		return dir, nil
	}
	if out, err := exec.Command("pg_config", "--bindir").Output(); err == nil {
		if dir := strings.TrimSpace(string(out)); dir != "" && has(dir) {
			return dir, nil
		}
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	// Newest version first, compared part by part (9.6 < 10 < 15).
	version := func(d string) []int {
		var v []int
		for _, p := range strings.Split(filepath.Base(filepath.Dir(d)), ".") {
			n, _ := strconv.Atoi(p)
			v = append(v, n)
		}
		return v
	}
	sort.Slice(dirs, func(i, j int) bool { return slices.Compare(version(dirs[i]), version(dirs[j])) > 0 })
	for _, dir := range dirs {
		if has(dir) {
			return dir, nil
		}
	}
	return "", errors.New("pgtest: PostgreSQL server binaries (initdb, postgres) not found: " +
		"run `make deps` (scripts/deps.sh installs the Debian package postgresql), " +
		"or set " + EnvBinDir + " to their directory, or " + EnvURL + " to an existing server")
}

// makeDir makes the cluster's directory: short enough for the unix socket
// path (107 bytes) and reachable by the server's OS user.
func makeDir(cred *syscall.Credential) (string, error) {
	const socketName = "/.s.PGSQL.65535"
	dir, err := os.MkdirTemp("", "pg")
	if err == nil && (len(dir)+len(socketName) > 107 || (cred != nil && !reachable(dir, cred.Uid))) {
		os.Remove(dir)
		dir, err = os.MkdirTemp("/tmp", "pg")
	}
	if err != nil {
		return "", fmt.Errorf("pgtest: %w", err)
	}
	if cred != nil {
		if err := os.Chown(dir, int(cred.Uid), int(cred.Gid)); err != nil {
			os.RemoveAll(dir)
			return "", fmt.Errorf("pgtest: %w", err)
		}
	}
	return dir, nil
}

// reachable reports whether user uid can traverse every ancestor of dir.
func reachable(dir string, uid uint32) bool {
	for d := filepath.Dir(dir); ; d = filepath.Dir(d) {
		st, err := os.Stat(d)
		if err != nil {
			return false
		}
		sys, ok := st.Sys().(*syscall.Stat_t)
		if !(st.Mode().Perm()&0o001 != 0 || (ok && sys.Uid == uid && st.Mode().Perm()&0o100 != 0)) {
			return false
		}
		if d == filepath.Dir(d) {
			return true
		}
	}
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("pgtest: free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func quoteIdent(s string) string {
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func tail(b []byte, max int) []byte {
	if len(b) > max {
		b = b[len(b)-max:]
		if i := strings.IndexByte(string(b), '\n'); i >= 0 {
			b = b[i+1:]
		}
	}
	return b
}

func redact(raw string) string {
	if u, err := url.Parse(raw); err == nil {
		return u.Redacted()
	}
	return "(unparsable URL)"
}
