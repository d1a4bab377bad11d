// Command ccwallet is a self-hostable validator wallet for the network's
// native coin: web wallet, JSON APIs, automations and the ledger in one
// binary.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/ccwallet/ccwallet/cmd/ccwallet/internal/timerslack"
	"github.com/ccwallet/ccwallet/store"
	"github.com/ccwallet/ccwallet/web"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Environ(), os.Stdout, os.Stderr); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return // --help printed the usage
		}
		fmt.Fprintln(os.Stderr, "ccwallet:", err)
		os.Exit(1)
	}
}

const usage = `ccwallet: a validator wallet for the network's coin.

Usage:
  ccwallet [serve] [flags]            start the wallet (the default)
  ccwallet migrate [flags]            apply database migrations and exit
  ccwallet config check [--config F]  validate the configuration and exit (0 ok, 1 not); fetches the
                                      identity provider's discovery and JWKS unless --offline
  ccwallet config print [--config F]  print the effective configuration, secrets masked
  ccwallet token --user NAME          print a development JWT for NAME (devnet only)
  ccwallet version                    print the version
  ccwallet help [COMMAND]             this list, or the flags of COMMAND (also --help, -h)
  ccwallet advance-rounds --rounds N  open N mining rounds (or --until TIME) now, with their work (devnet only)
  ccwallet external COMMAND           external-party client (keygen, sign, onboard, transfer)
  ccwallet devnet COMMAND             snapshots, restore, reset, tail (devnet only; "ccwallet devnet help")

Run "ccwallet COMMAND --help" for the flags of a command.
`

// run is main without the process: arguments, environment (KEY=VALUE
// pairs, as os.Environ) and output streams are passed in, so tests run
// the real commands in-process.
func run(ctx context.Context, args []string, environ []string, stdout, stderr io.Writer) error {
	env := newEnv(environ)
	cmd, args := timerslack.Command(args)
	switch cmd {
	case "serve":
		return serve(ctx, args, env, stdout, stderr, serveOptions{})
	case "migrate":
		return migrate(ctx, args, env, stdout, stderr)
	case "config":
		return configCmd(ctx, args, env, stdout, stderr)
	case "token":
		return token(args, stdout, stderr)
	case "advance-rounds":
		return advanceRoundsCmd(ctx, args, env, stdout, stderr)
	case "external":
		return externalCmd(ctx, args, env.get, stdout, stderr)
	case "devnet":
		return devnetCmd(ctx, args, env, stdout, stderr)
	case "version":
		fmt.Fprintln(stdout, "ccwallet", version)
		return nil
	case "help":
		if len(args) > 0 && args[0] != "help" && !strings.HasPrefix(args[0], "-") {
			return run(ctx, []string{args[0], "--help"}, environ, stdout, stderr) // `help COMMAND`
		}
		fmt.Fprint(stdout, usage)
		return nil
	}
	fmt.Fprint(stderr, usage)
	return fmt.Errorf("unknown command %q", cmd)
}

// commonFlags are the flags every command that reads the configuration
// takes. Flags override the environment, which overrides the file.
type commonFlags struct {
	config    string
	db        string
	network   string
	logFormat string
	logLevel  string
}

func (c *commonFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&c.config, "config", "", "values file (YAML) with the validator's configuration")
	fs.StringVar(&c.db, "db", "", "database: a postgres:// URL or a SQLite file path (default data/ccwallet.db)")
	fs.StringVar(&c.network, "network", "", "devnet or production (default devnet)")
	fs.StringVar(&c.logFormat, "log-format", "", "text or json")
	fs.StringVar(&c.logLevel, "log-level", "", "debug, info, warn or error")
}

// read loads file and environment and applies the flags, without
// validating.
func (c *commonFlags) read(env envVars) (Config, error) {
	cfg, err := readConfig(c.config, env)
	if err != nil {
		return cfg, err
	}
	set := func(dst *string, v string) {
		if v != "" {
			*dst = v
		}
	}
	set(&cfg.Persistence.URL, c.db)
	set(&cfg.Network, c.network)
	set(&cfg.LogFormat, c.logFormat)
	set(&cfg.LogLevel, c.logLevel)
	return cfg, nil
}

// load is read plus validation; extra applies command-specific flags first.
func (c *commonFlags) load(env envVars, extra func(*Config)) (Config, error) {
	cfg, err := c.read(env)
	if err != nil {
		return cfg, err
	}
	if extra != nil {
		extra(&cfg)
	}
	if err := cfg.validate(time.Now(), env); err != nil {
		return cfg, invalidConfig(err)
	}
	return cfg, nil
}

// invalidConfig lists every problem, one "key: why" per line.
func invalidConfig(err error) error {
	return fmt.Errorf("invalid configuration:\n  %s", strings.ReplaceAll(err.Error(), "\n", "\n  "))
}

func newLogger(cfg Config, w io.Writer) *slog.Logger {
	level := slog.LevelInfo
	_ = level.UnmarshalText([]byte(cfg.LogLevel))
	opts := &slog.HandlerOptions{Level: level}
	if cfg.LogFormat == "json" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}

// openStore opens the database and migrates it.
func openStore(ctx context.Context, cfg Config, env envVars, log *slog.Logger) (*store.DB, error) {
	db, err := openDatabase(ctx, cfg, env, log)
	if err != nil {
		return nil, err
	}
	if err := migrateDatabase(ctx, db, log); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// openDatabase opens the configured database (the pool as persistence
// sets it), without migrating.
func openDatabase(ctx context.Context, cfg Config, env envVars, log *slog.Logger) (*store.DB, error) {
	dbURL, err := cfg.DatabaseURL(env.get)
	if err != nil {
		return nil, err
	}
	p := cfg.Persistence
	return store.Open(ctx, store.Config{
		URL: dbURL, MaxOpenConns: p.MaxOpenConns, MaxIdleConns: p.MaxIdleConns, ConnMaxLifetime: p.ConnMaxLifetime.Std(),
	}, log)
}

// migrateDatabase applies the migrations db has not had yet.
func migrateDatabase(ctx context.Context, db *store.DB, log *slog.Logger) error {
	applied, err := db.Migrate(ctx)
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	if len(applied) > 0 {
		log.Info("database migrated", "applied", applied, "engine", db.Engine)
	}
	return nil
}

func migrate(ctx context.Context, args []string, env envVars, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("migrate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var c commonFlags
	c.register(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	cfg, err := c.load(env, nil)
	if err != nil {
		return err
	}
	db, err := openStore(ctx, cfg, env, newLogger(cfg, stderr))
	if err != nil {
		return err
	}
	defer db.Close()
	fmt.Fprintln(stdout, "migrations applied")
	return nil
}

// configCmd is `ccwallet config check|print`.
func configCmd(ctx context.Context, args []string, env envVars, stdout, stderr io.Writer) error {
	if len(args) == 0 || (args[0] != "check" && args[0] != "print") {
		fmt.Fprint(stderr, usage)
		return errors.New("config: want check or print")
	}
	sub := args[0]
	fs := flag.NewFlagSet("config "+sub, flag.ContinueOnError)
	fs.SetOutput(stderr)
	var c commonFlags
	c.register(fs)
	offline := false
	if sub == "check" {
		fs.BoolVar(&offline, "offline", false, "skip fetching the identity provider's discovery document and JWKS")
	}
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	cfg, err := c.read(env)
	if err != nil {
		return err
	}
	warnings, verr := cfg.check(time.Now(), env) // what serve runs
	if sub == "check" {
		if p := checkProvider(ctx, cfg, env.get, offline, stdout); len(p) > 0 {
			verr = errors.Join(verr, errors.New(strings.Join(p, "\n")))
		}
	}
	if sub == "print" {
		if err := cfg.printYAML(stdout); err != nil {
			return err
		}
	}
	if sub == "check" {
		for _, w := range warnings {
			fmt.Fprintf(stdout, "warning: %s\n", w)
		}
	}
	if verr != nil {
		return invalidConfig(verr)
	}
	if sub == "check" {
		fmt.Fprintln(stdout, "configuration OK")
		for _, k := range cfg.networkNotes() {
			fmt.Fprintf(stdout, "note: %s is accepted but ignored by the embedded network\n", k)
		}
		for _, k := range cfg.Ignored {
			fmt.Fprintf(stdout, "note: %s is accepted but ignored\n", k)
		}
	}
	return nil
}

func token(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("token", flag.ContinueOnError)
	fs.SetOutput(stderr)
	user := fs.String("user", "", "user name (the token's sub)")
	ttl := fs.Duration("ttl", 24*time.Hour, "lifetime of the token")
	audience := fs.String("audience", DefaultAudience, "token audience")
	actAs := fs.String("act-as", "", "party ID the user (an admin) acts as: a development network's impersonation")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *user == "" {
		return errors.New("token: --user is required")
	}
	t, err := web.SignDevTokenActAs(devKey(), devKeyID, devIssuer, *audience, *user, *actAs, *ttl)
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, t)
	return nil
}

// appTLS maps a values file's TLS block (tls, healthTls, metrics.tls) to
// web.TLSConfig.
func appTLS(t *TLSConfig) *web.TLSConfig {
	if t == nil {
		return nil
	}
	w := &web.TLSConfig{
		CertChainFile: t.CertChainFile, PrivateKeyFile: t.PrivateKeyFile, TrustCollectionFile: t.TrustCollectionFile,
		ClientAuthRequire: t.ClientAuth.Type == "require", MinVersion: t.MinimumServerProtocolVersion,
		CipherSuites: t.Ciphers,
	}
	if a := t.adminClient(); a != nil {
		w.AdminClient = &web.ClientCert{CertChainFile: a.CertChainFile, PrivateKeyFile: a.PrivateKeyFile}
	}
	return w
}

// outboundClient is the HTTP client for JWKS and OIDC discovery. It honours
// HTTPS_PROXY, HTTP_PROXY and NO_PROXY (the Go equivalents of the JVM's
// https.proxyHost/https.nonProxyHosts).
func outboundClient() *http.Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.Proxy = http.ProxyFromEnvironment
	return &http.Client{Timeout: 10 * time.Second, Transport: tr}
}

// displayAddr turns a listen address into one a browser can open.
func displayAddr(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return addr
	}
	if host == "" || host == "::" || host == "0.0.0.0" {
		host = "localhost"
	}
	return net.JoinHostPort(host, port)
}
