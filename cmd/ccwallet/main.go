// Command ccwallet is a self-hostable validator wallet for the network's
// native coin: web wallet, JSON APIs, automations and the ledger in one
// binary.
package main

import (
	"context"
	"crypto"
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

	"github.com/ccwallet/ccwallet/handlers"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/store"
	"github.com/ccwallet/ccwallet/web"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr); err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, "ccwallet:", err)
		}
		os.Exit(1)
	}
}

const usage = `ccwallet: a validator wallet for the network's coin.

Usage:
  ccwallet [serve] [flags]     start the wallet (the default)
  ccwallet migrate [flags]     apply database migrations and exit
  ccwallet token --user NAME   print a development JWT for NAME (devnet only)
  ccwallet advance-rounds --rounds N
                               open N mining rounds now and run their work (devnet only)
  ccwallet version             print the version

Run "ccwallet COMMAND --help" for the flags of a command.
`

func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	cmd := "serve"
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		cmd, args = args[0], args[1:]
	}
	switch cmd {
	case "serve":
		return serve(ctx, args, getenv, stdout, stderr)
	case "migrate":
		return migrate(ctx, args, getenv, stdout, stderr)
	case "token":
		return token(args, getenv, stdout, stderr)
	case "advance-rounds":
		return advanceRoundsCmd(ctx, args, getenv, stdout, stderr)
	case "version":
		fmt.Fprintln(stdout, "ccwallet", version)
		return nil
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return nil
	}
	fmt.Fprint(stderr, usage)
	return fmt.Errorf("unknown command %q", cmd)
}

// commonFlags are the flags serve and migrate share.
type commonFlags struct {
	config string
	db     string
}

func (c *commonFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&c.config, "config", "", "values file (YAML) with the validator's configuration")
	fs.StringVar(&c.db, "db", "", "database: a postgres:// URL or a SQLite file path (default data/ccwallet.db)")
}

func (c *commonFlags) load(getenv func(string) string) (Config, error) {
	cfg, err := loadConfig(c.config, getenv)
	if err != nil {
		return cfg, err
	}
	if c.db != "" {
		cfg.Persistence.URL = c.db
	}
	return cfg, nil
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

func openStore(ctx context.Context, cfg Config, log *slog.Logger) (*store.DB, error) {
	db, err := store.Open(ctx, store.Config{URL: cfg.DatabaseURL()}, log)
	if err != nil {
		return nil, err
	}
	applied, err := db.Migrate(ctx)
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("migrate: %w", err)
	}
	if len(applied) > 0 {
		log.Info("database migrated", "applied", applied, "engine", db.Engine)
	}
	return db, nil
}

func migrate(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("migrate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var c commonFlags
	c.register(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	cfg, err := c.load(getenv)
	if err != nil {
		return err
	}
	db, err := openStore(ctx, cfg, newLogger(cfg, stderr))
	if err != nil {
		return err
	}
	defer db.Close()
	fmt.Fprintln(stdout, "migrations applied")
	return nil
}

func token(args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("token", flag.ContinueOnError)
	fs.SetOutput(stderr)
	user := fs.String("user", "", "user name (the token's sub)")
	ttl := fs.Duration("ttl", 24*time.Hour, "lifetime of the token")
	audience := fs.String("audience", DefaultAudience, "token audience")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *user == "" {
		return errors.New("token: --user is required")
	}
	t, err := web.SignDevToken(devKey(), devKeyID, devIssuer, *audience, *user, *ttl)
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, t)
	return nil
}

func serve(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var c commonFlags
	c.register(fs)
	listen := fs.String("listen", "", "app port address (default :8080)")
	healthListen := fs.String("health-listen", "", "health port address (default :5003)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	cfg, err := c.load(getenv)
	if err != nil {
		return err
	}
	if *listen != "" {
		cfg.Listen = *listen
	}
	if *healthListen != "" {
		cfg.HealthListen = *healthListen
	}
	log := newLogger(cfg, stderr)
	start := time.Now()

	db, err := openStore(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer db.Close()
	l, err := ledger.Open(ctx, db, ledger.Config{
		OperatorHint: cfg.ValidatorPartyHint, AdminUsers: cfg.ValidatorWalletUsers, DevNet: cfg.DevNet(),
		MergeDelegationAtOnboarding: cfg.mergeAtOnboarding(),
	}, log)
	if err != nil {
		return err
	}

	authCfg := web.AuthConfig{Audience: cfg.Auth.Audience, Issuer: cfg.Auth.Issuer, JWKSURL: cfg.Auth.JWKSURL, DisableAuth: cfg.DisableAuth, Leeway: 30 * time.Second}
	if cfg.DevNet() {
		authCfg.StaticKeys = map[string]crypto.PublicKey{devKeyID: devKey().Public()}
	}
	verifier, err := web.NewVerifier(authCfg, log)
	if err != nil {
		return err
	}
	health := web.HealthHandler(map[string]web.HealthChecker{"database": l.Ping})
	// Automations (automations.go): started here, stopped when serve returns.
	sched, err := startAutomations(l, cfg, log)
	if err != nil {
		return err
	}
	defer stopAutomations(sched, log)
	h := handlers.New(l, handlers.Config{Auth: verifier, Jobs: jobStatuses(sched)}, log)

	appLn, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", cfg.Listen, err)
	}
	healthLn, err := net.Listen("tcp", cfg.HealthListen)
	if err != nil {
		appLn.Close()
		return fmt.Errorf("listen on %s: %w", cfg.HealthListen, err)
	}
	app := &http.Server{Handler: h.Routes(health), ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 120 * time.Second}
	healthSrv := &http.Server{Handler: health, ReadHeaderTimeout: 5 * time.Second}

	errc := make(chan error, 2)
	go func() { errc <- web.Serve(ctx, "app", app, appLn, log) }()
	go func() { errc <- web.Serve(ctx, "health", healthSrv, healthLn, log) }()

	url := cfg.PublicURL
	if url == "" {
		url = "http://" + displayAddr(appLn.Addr().String()) + "/"
	}
	log.Info("ccwallet ready", "url", url, "health", healthLn.Addr().String(), "engine", db.Engine,
		"network", cfg.Network, "operator", l.Operator(), "startup", time.Since(start).Round(time.Millisecond))
	fmt.Fprintf(stdout, "ccwallet is ready: open %s\n", url)

	var first error
	for range 2 {
		if err := <-errc; err != nil && first == nil {
			first = err
		}
	}
	log.Info("ccwallet stopped")
	return first
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
