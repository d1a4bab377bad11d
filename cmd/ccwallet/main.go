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
  ccwallet config check [--config F]  validate the configuration and exit (0 ok, 1 not)
  ccwallet config print [--config F]  print the effective configuration, secrets masked
  ccwallet token --user NAME          print a development JWT for NAME (devnet only)
  ccwallet version                    print the version
  ccwallet advance-rounds --rounds N  open N mining rounds now and run their work (devnet only)
  ccwallet external COMMAND           external-party client (keygen, sign, onboard, transfer)

Run "ccwallet COMMAND --help" for the flags of a command.
`

// run is main without the process: arguments, environment (KEY=VALUE
// pairs, as os.Environ) and output streams are passed in, so tests run
// the real commands in-process.
func run(ctx context.Context, args []string, environ []string, stdout, stderr io.Writer) error {
	env := newEnv(environ)
	cmd := "serve"
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		cmd, args = args[0], args[1:]
	}
	switch cmd {
	case "serve":
		return serve(ctx, args, env, stdout, stderr)
	case "migrate":
		return migrate(ctx, args, env, stdout, stderr)
	case "config":
		return configCmd(args, env, stdout, stderr)
	case "token":
		return token(args, stdout, stderr)
	case "advance-rounds":
		return advanceRoundsCmd(ctx, args, env, stdout, stderr)
	case "external":
		return externalCmd(ctx, args, env.get, stdout, stderr)
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

func openStore(ctx context.Context, cfg Config, env envVars, log *slog.Logger) (*store.DB, error) {
	dbURL, err := cfg.DatabaseURL(env.get)
	if err != nil {
		return nil, err
	}
	p := cfg.Persistence
	db, err := store.Open(ctx, store.Config{
		URL: dbURL, MaxOpenConns: p.MaxOpenConns, MaxIdleConns: p.MaxIdleConns, ConnMaxLifetime: p.ConnMaxLifetime.Std(),
	}, log)
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
func configCmd(args []string, env envVars, stdout, stderr io.Writer) error {
	if len(args) == 0 || (args[0] != "check" && args[0] != "print") {
		fmt.Fprint(stderr, usage)
		return errors.New("config: want check or print")
	}
	sub := args[0]
	fs := flag.NewFlagSet("config "+sub, flag.ContinueOnError)
	fs.SetOutput(stderr)
	var c commonFlags
	c.register(fs)
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	cfg, err := c.read(env)
	if err != nil {
		return err
	}
	warnings, verr := cfg.check(time.Now(), env) // what serve runs
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

// appTLS maps the values file's tls block to web.TLSConfig.
func appTLS(t *TLSConfig) *web.TLSConfig {
	if t == nil {
		return nil
	}
	return &web.TLSConfig{
		CertChainFile: t.CertChainFile, PrivateKeyFile: t.PrivateKeyFile, TrustCollectionFile: t.TrustCollectionFile,
		ClientAuthRequire: t.ClientAuth.Type == "require", MinVersion: t.MinimumServerProtocolVersion,
	}
}

// outboundClient is the HTTP client for JWKS and OIDC discovery. It honours
// HTTPS_PROXY, HTTP_PROXY and NO_PROXY (the Go equivalents of the JVM's
// https.proxyHost/https.nonProxyHosts).
func outboundClient() *http.Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.Proxy = http.ProxyFromEnvironment
	return &http.Client{Timeout: 10 * time.Second, Transport: tr}
}

// readyKey is the context key of a func tests use to learn the bound
// addresses (ports chosen by the kernel for ":0").
type readyKey struct{}

// connStateKey is the context key of a func tests use to follow
// connections (http.Server.ConnState) of the named server.
type connStateKey struct{}

// readyAddrs are the addresses serve listens on; empty when off.
type readyAddrs struct {
	App, Health, Metrics string
	Operator             string
}

func serve(ctx context.Context, args []string, env envVars, stdout, stderr io.Writer) error {
	// --- configuration
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var c commonFlags
	c.register(fs)
	listen := fs.String("listen", "", "app port address (default :8080)")
	healthListen := fs.String("health-listen", "", "health port address (default :5003)")
	metricsListen := fs.String("metrics-listen", "", "metrics port address (default :10013)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	cfg, warnings, err := c.checked(env, func(cfg *Config) {
		if *listen != "" {
			cfg.Listen = *listen
		}
		if *healthListen != "" {
			cfg.HealthListen = *healthListen
		}
		if *metricsListen != "" {
			cfg.Metrics.Listen = *metricsListen
		}
	})
	if err != nil {
		return err
	}
	log := newLogger(cfg, stderr)
	start := time.Now()
	for _, w := range warnings {
		log.Warn("configuration weakens security: " + w)
	}
	if notes := cfg.networkNotes(); len(notes) > 0 {
		log.Info("multi-validator settings accepted but ignored: the embedded network has one validator, no sponsor, scan or sequencers",
			"ignored", notes)
	}
	if len(cfg.Ignored) > 0 {
		log.Warn("ADDITIONAL_CONFIG variables accepted but ignored", "vars", cfg.Ignored)
	}

	// --- metrics
	var m *metrics
	var observers []web.Middleware
	if cfg.MetricsEnabled() {
		m = newMetrics(cfg.NativeHistograms())
		observers = append(observers, web.Metrics(m.reg, cfg.NativeHistograms()))
	}

	// --- database and ledger
	db, err := openStore(ctx, cfg, env, log)
	if err != nil {
		return err
	}
	defer db.Close()
	lcfg := ledger.Config{
		OperatorHint: cfg.ValidatorPartyHint, AdminUsers: cfg.ValidatorWalletUsers, DevNet: cfg.DevNet(),
		MergeDelegationAtOnboarding: cfg.mergeAtOnboarding(),
		PreparedTTL:                 cfg.ExternalPartyPreparedTTL,
	}
	if m != nil {
		lcfg.Observer = m
		m.watchDB(db.DB.DB, "ccwallet")
	}
	l, err := ledger.Open(ctx, db, lcfg, log)
	if err != nil {
		return err
	}
	if m != nil {
		m.watchOperator(l, log)
	}

	// --- authentication
	authCfg := web.AuthConfig{
		Audience: cfg.Auth.Audience, Issuer: cfg.Auth.Issuer, JWKSURL: cfg.Auth.JWKSURL, DisableAuth: cfg.DisableAuth,
		Leeway: 30 * time.Second, HTTPClient: outboundClient(),
	}
	if cfg.DevNet() {
		authCfg.StaticKeys = map[string]crypto.PublicKey{devKeyID: devKey().Public()}
	}
	verifier, err := web.NewVerifier(authCfg, log)
	if err != nil {
		return err
	}

	// --- health: one check per dependency. The automations section adds
	// checks["scheduler"] before the handler is built.
	checks := map[string]web.HealthChecker{"database": l.Ping}

	// --- automations (automations.go): only with the wallet on (enableWallet
	// turns its automations off with its routes); stopped when serve returns.
	var jobStatus func() []handlers.JobStatus
	if cfg.WalletEnabled() {
		sched, err := startAutomations(ctx, l, cfg, m, log)
		if err != nil {
			return err
		}
		defer stopAutomations(sched, log)
		jobStatus = jobStatuses(sched)
		// Fails when the scheduler stopped or a job failed
		// jobs.DefaultMaxConsecutiveFailures times in a row.
		checks["scheduler"] = sched.Check
	}

	health := web.NewHealthHandler(web.HealthConfig{Checks: checks, Log: log, Warnings: warnings})

	// --- servers
	type server struct {
		name string
		srv  *http.Server
		ln   net.Listener
	}
	var servers []server
	defer func() {
		for _, s := range servers {
			s.ln.Close()
		}
	}()
	add := func(name, addr string, tlsCfg *web.TLSConfig, h http.Handler) error {
		srv, err := web.NewServer(web.ServerConfig{Addr: addr, TLS: tlsCfg}, h, log)
		if err != nil {
			return err
		}
		if f, ok := ctx.Value(connStateKey{}).(func(string, net.Conn, http.ConnState)); ok {
			srv.ConnState = func(c net.Conn, st http.ConnState) { f(name, c, st) }
		}
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			return fmt.Errorf("listen on %s (%s): %w", addr, name, err)
		}
		servers = append(servers, server{name, srv, ln})
		return nil
	}
	// The app server's handler is set below, once the listening address
	// (and so the public URL the login redirects to) is known.
	if err := add("app", cfg.Listen, appTLS(cfg.TLS), http.NotFoundHandler()); err != nil {
		return err
	}
	ready := readyAddrs{App: servers[0].ln.Addr().String(), Operator: string(l.Operator())}
	url := cfg.PublicURL
	if url == "" {
		scheme := "http"
		if cfg.TLS != nil {
			scheme = "https"
		}
		url = scheme + "://" + displayAddr(ready.App) + "/"
	}

	// --- app routes, with the web wallet (UI: sessions, OIDC login, dev
	// provider; see ui.go)
	var appHandler http.Handler
	if cfg.WalletEnabled() {
		ui, err := newUI(ctx, cfg, env.get, strings.TrimSuffix(url, "/"), handlers.SessionStore(l), log)
		if err != nil {
			return err
		}
		if ui != nil && ui.DevProvider != nil {
			fmt.Fprintln(stdout, devLoginHint())
		}
		appHandler = handlers.New(l, handlers.Config{Auth: verifier, Observe: observers, UI: ui, Jobs: jobStatus, Network: cfg.networkSettings(time.Now()), Warnings: warnings,
			Limiter: web.NewLimiter(web.RateLimit{Burst: cfg.RateLimit.Burst, Per: cfg.RateLimit.Per.Std()})}, log).Routes(health)
	} else {
		log.Info("wallet disabled (enableWallet: false): the app port serves only health probes")
		appHandler = walletDisabled(health, observers, log)
	}
	servers[0].srv.Handler = appHandler
	if cfg.HealthEnabled() {
		if err := add("health", cfg.HealthListen, nil, health); err != nil {
			return err
		}
		ready.Health = servers[len(servers)-1].ln.Addr().String()
	}
	if m != nil {
		if err := add("metrics", cfg.Metrics.Listen, nil, web.MetricsHandler(m.reg)); err != nil {
			return err
		}
		ready.Metrics = servers[len(servers)-1].ln.Addr().String()
	}

	errc := make(chan error, len(servers))
	for _, s := range servers {
		go func() { errc <- web.Serve(ctx, s.name, s.srv, s.ln, log) }()
	}

	// The collector's target rises only now: start-up's garbage is
	// collected at Go's default, so the idle process stays small.
	gogc, gogcFrom := tuneGC()
	log.Info("ccwallet ready", "url", url, "health", ready.Health, "metrics", ready.Metrics, "engine", db.Engine,
		"network", cfg.Network, "operator", l.Operator(), "wallet", cfg.WalletEnabled(),
		"startup", time.Since(start).Round(time.Millisecond), "gogc", gogc, "gogc_from", gogcFrom)
	fmt.Fprintf(stdout, "ccwallet is ready: open %s\n", url)
	if f, ok := ctx.Value(readyKey{}).(func(readyAddrs)); ok {
		f(ready)
	}

	var first error
	for range servers {
		if err := <-errc; err != nil && first == nil {
			first = err
		}
	}
	servers = nil // closed by Serve
	log.Info("ccwallet stopped")
	return first
}

// walletDisabled is the app port's handler with enableWallet: false:
// health probes answer, everything else is 503 with the reason.
func walletDisabled(health http.Handler, observers []web.Middleware, log *slog.Logger) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /readyz", health)
	mux.Handle("GET /livez", health)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		web.WriteError(w, http.StatusServiceUnavailable, "the wallet is disabled on this validator (enableWallet: false)")
	})
	mws := append([]web.Middleware{web.RequestID, web.Logger(log)}, observers...)
	return web.Chain(mux, append(mws, web.Recover(log))...)
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
