package deploy

import (
	"bufio"
	"database/sql"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/ccwallet/ccwallet/store/pgtest"
	_ "github.com/jackc/pgx/v5/stdlib"
	"gopkg.in/yaml.v3"
)

// composeVarRE is ${NAME}, ${NAME:-default} or ${NAME-default}.
var composeVarRE = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)(:?-([^}]*))?\}`)

// interpolate substitutes variables as compose does (the forms the file
// uses); an unset variable without a default is an error, since compose
// would silently make it empty.
func interpolate(t *testing.T, s string, vars map[string]string) string {
	t.Helper()
	return composeVarRE.ReplaceAllStringFunc(s, func(m string) string {
		sub := composeVarRE.FindStringSubmatch(m)
		if v, ok := vars[sub[1]]; ok && (v != "" || !strings.HasPrefix(sub[2], ":")) {
			return v
		}
		if sub[2] == "" {
			t.Errorf("%s has no default and env.example does not set it", sub[1])
		}
		return sub[3]
	})
}

func readEnvFile(t *testing.T, path string) map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	vars := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if k, v, ok := strings.Cut(line, "="); ok && !strings.HasPrefix(line, "#") {
			vars[k] = v
		}
	}
	return vars
}

// composePod is the wallet service as compose starts it with vars: its
// command, environment, bind mounts and secrets under a temporary root.
func composePod(t *testing.T, vars map[string]string, secrets map[string]string) pod {
	t.Helper()
	raw, err := os.ReadFile("compose/compose.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Services map[string]struct {
			Command     []string          `yaml:"command"`
			Environment map[string]string `yaml:"environment"`
			Volumes     []string          `yaml:"volumes"`
			Secrets     []string          `yaml:"secrets"`
		} `yaml:"services"`
		Secrets map[string]struct {
			File string `yaml:"file"`
		} `yaml:"secrets"`
	}
	if err := yaml.Unmarshal([]byte(interpolate(t, string(raw), vars)), &file); err != nil {
		t.Fatal(err)
	}
	svc, ok := file.Services["wallet"]
	if !ok {
		t.Fatal("compose.yaml has no wallet service")
	}
	p := pod{root: t.TempDir(), args: svc.Command}
	var pairs []string
	mount := func(dst string, body []byte) {
		pairs = append(pairs, dst, filepath.Join(p.root, dst))
		path := filepath.Join(p.root, dst)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, body, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	var files [][2]string
	for _, v := range svc.Volumes {
		parts := strings.Split(v, ":")
		if len(parts) < 2 || !strings.HasPrefix(parts[0], "./") {
			t.Fatalf("volume %q: only bind mounts of files beside compose.yaml are expected", v)
		}
		files = append(files, [2]string{parts[0], parts[1]})
	}
	for _, name := range svc.Secrets {
		if _, ok := file.Secrets[name]; !ok {
			t.Fatalf("secret %s is not declared", name)
		}
		v, ok := secrets[name]
		if !ok {
			t.Fatalf("no stand-in for secret %s", name)
		}
		mount("/run/secrets/"+name, []byte(v))
	}
	for _, f := range files {
		pairs = append(pairs, f[1], filepath.Join(p.root, f[1]))
	}
	rewrite := strings.NewReplacer(pairs...)
	for _, f := range files {
		body, err := os.ReadFile(filepath.Join("compose", f[0]))
		if err != nil {
			t.Fatal(err)
		}
		mount(f[1], []byte(rewrite.Replace(string(body))))
	}
	for i, a := range p.args {
		p.args[i] = rewrite.Replace(a)
	}
	for k, v := range svc.Environment {
		p.env = append(p.env, k+"="+v)
	}
	slices.Sort(p.env)
	return p
}

// TestComposeConfigCheck: the wallet service, with env.example's values,
// passes `ccwallet config check`; the seed's variables reach the wallet.
func TestComposeConfigCheck(t *testing.T) {
	vars := readEnvFile(t, "compose/env.example")
	p := composePod(t, vars, map[string]string{"postgres-password": "stand-in\n"})
	for _, k := range []string{"MIGRATION_ID", "SPONSOR_SV_URL", "TRUSTED_SCAN_URL", "ONBOARDING_SECRET", "TARGET_TRAFFIC_THROUGHPUT", "MIN_TRAFFIC_TOPUP_INTERVAL"} {
		if !slices.ContainsFunc(p.env, func(e string) bool { return strings.HasPrefix(e, k+"=") }) {
			t.Errorf("the wallet service does not pass %s", k)
		}
	}
	if out, ok := p.check(t); !ok {
		t.Fatalf("the wallet service's configuration is refused:\n%s", out)
	}

	// The seed's variables are read: a bad one is named.
	vars["MIN_TRAFFIC_TOPUP_INTERVAL"] = "soon"
	out, ok := composePod(t, vars, map[string]string{"postgres-password": "stand-in\n"}).check(t)
	if ok || !strings.Contains(out, "MIN_TRAFFIC_TOPUP_INTERVAL") {
		t.Fatalf("a bad MIN_TRAFFIC_TOPUP_INTERVAL was not refused:\n%s", out)
	}
}

// TestComposeMigratesOnPostgres plays the compose deployment on a real
// Postgres: the database and user the postgres service creates, its
// initdb scripts, then `ccwallet migrate` with the wallet service's
// command, environment and secret file (the host "postgres" is the test
// cluster). The wallet's tables must land in the schema participant.
func TestComposeMigratesOnPostgres(t *testing.T) {
	pg := startPostgres(t, "participant_0")
	// The postgres image runs /docker-entrypoint-initdb.d as POSTGRES_USER.
	raw, err := os.ReadFile("compose/compose.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(raw), "./initdb:/docker-entrypoint-initdb.d") {
		t.Fatal("the postgres service does not mount ./initdb")
	}
	scripts, _ := filepath.Glob("compose/initdb/*.sql")
	for _, s := range scripts {
		body, _ := os.ReadFile(s)
		if _, err := pg.db.ExecContext(t.Context(), string(body)); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	p := composePod(t, readEnvFile(t, "compose/env.example"), map[string]string{"postgres-password": pg.password + "\n"})
	for i, e := range p.env {
		if strings.HasPrefix(e, "WALLET_DATABASE_URL=") {
			p.env[i] = strings.Replace(e, "@postgres:5432/", "@"+pg.hostPort+"/", 1)
		}
	}
	pg.migrate(t, p, "participant")
}

// testPostgres is a real Postgres with the chart's and compose's user
// cnadmin, which must give its password (the rest of the private cluster
// trusts local connections), owning database db.
type testPostgres struct {
	hostPort, password string
	db                 *sql.DB // as cnadmin, in db
}

func startPostgres(t *testing.T, dbName string) testPostgres {
	t.Helper()
	ctx := t.Context()
	c, err := pgtest.Start(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Stop)
	pg := testPostgres{password: "stand-in-password"}
	u, err := url.Parse(c.URL(dbName))
	if err != nil {
		t.Fatal(err)
	}
	pg.hostPort = u.Host
	admin, err := sql.Open("pgx", c.URL("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	hba := filepath.Join(c.DataDir(), "pg_hba.conf")
	old, err := os.ReadFile(hba)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(hba, append([]byte("host all cnadmin 127.0.0.1/32 scram-sha-256\n"), old...), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		"SELECT pg_reload_conf()",
		"CREATE ROLE cnadmin LOGIN PASSWORD '" + pg.password + "'",
		"CREATE DATABASE " + dbName + " OWNER cnadmin",
	} {
		if _, err := admin.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	u.User = url.UserPassword("cnadmin", pg.password)
	if pg.db, err = sql.Open("pgx", u.String()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pg.db.Close() })
	// A wrong password is refused, so the wallet's connection below proves
	// it read the right one.
	u.User = url.UserPassword("cnadmin", "wrong")
	wrong, _ := sql.Open("pgx", u.String())
	defer wrong.Close()
	if err := wrong.PingContext(ctx); err == nil {
		t.Fatal("the test cluster accepts cnadmin with a wrong password")
	}
	return pg
}

// migrate runs `ccwallet migrate` with the pod's flags and environment
// and checks the wallet's tables are in schema.
func (pg testPostgres) migrate(t *testing.T, p pod, schema string) {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), wallet, append([]string{"migrate"}, p.args[1:]...)...)
	cmd.Env = p.env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("ccwallet migrate with the deployment's configuration: %v\n%s", err, out)
	}
	var n int
	if err := pg.db.QueryRowContext(t.Context(), "SELECT count(*) FROM information_schema.tables WHERE table_schema = $1", schema).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Fatalf("no table in the schema %s after migrate", schema)
	}
}

// TestComposePorts: the wallet service publishes each of the wallet's
// listeners on the loopback: the app, health, metrics and the JSON
// Ledger API (7575, which values.yaml serves).
func TestComposePorts(t *testing.T) {
	raw, err := os.ReadFile("compose/compose.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Services map[string]struct {
			Ports []string `yaml:"ports"`
		} `yaml:"services"`
	}
	if err := yaml.Unmarshal(raw, &file); err != nil {
		t.Fatal(err)
	}
	for _, port := range []string{"8080", "5003", "10013", "7575"} {
		if !slices.Contains(file.Services["wallet"].Ports, "127.0.0.1:"+port+":"+port) {
			t.Errorf("the wallet service does not publish %s: %v", port, file.Services["wallet"].Ports)
		}
	}
	values, err := os.ReadFile("compose/values.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(values), `ledgerApiListen: ":7575"`) {
		t.Errorf("values.yaml does not serve the Ledger API on 7575:\n%s", values)
	}
}
