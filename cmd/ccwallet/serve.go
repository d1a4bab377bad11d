package main

import (
	"context"
	"crypto"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/ccwallet/ccwallet/cmd/ccwallet/internal/timerslack"
	"github.com/ccwallet/ccwallet/cmd/ccwallet/replicas"
	"github.com/ccwallet/ccwallet/handlers"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/apiread"
	"github.com/ccwallet/ccwallet/ledger/workflows"
	"github.com/ccwallet/ccwallet/ledgerapi"
	"github.com/ccwallet/ccwallet/store"
	"github.com/ccwallet/ccwallet/store/pgbatch"
	"github.com/ccwallet/ccwallet/web"
)

// serveOptions are what a caller of serve other than the command (the
// tests) may ask for; the zero value is the command.
type serveOptions struct {
	// ready, when set, is told the bound addresses (ports chosen by the
	// kernel for ":0") once the wallet is ready.
	ready func(readyAddrs)
	// connState, when set, follows the connections of each named server
	// (http.Server.ConnState).
	connState func(server string, c net.Conn, st http.ConnState)
}

// readyAddrs are the addresses serve listens on; empty when off.
type readyAddrs struct {
	App, Health, Metrics string
	Operator             string
	LedgerAPI            string
	// LocalNet are the app provider's and scan's addresses (--localnet).
	LocalNet localNetAddrs
}

// serve is `ccwallet serve`: each step below is one function, in the
// order they run; whatever a step started is stopped when serve returns.
func serve(ctx context.Context, args []string, env envVars, stdout, stderr io.Writer, opts serveOptions) error {
	cfg, warnings, err := loadServeConfig(args, env, stderr)
	if err != nil {
		return err
	}
	s := &serving{cfg: cfg, warnings: warnings, log: newLogger(cfg, stderr), stdout: stdout, opts: opts, start: time.Now()}
	s.logConfig()
	startPprof(ctx, env, s.log)
	s.startMetrics()
	if s.db, err = openDatabase(ctx, cfg, env, s.log); err != nil {
		return err
	}
	defer s.db.Close()
	if err := migrateDatabase(ctx, s.db, s.log); err != nil {
		return err
	}
	if err := s.openLedger(ctx); err != nil {
		return err
	}
	if err := s.openLocalNet(ctx); err != nil { // localnet.go
		return err
	}
	if err := s.seed(ctx); err != nil {
		return err
	}
	verifier, err := s.authVerifier()
	if err != nil {
		return err
	}
	stopJobs, err := s.startJobs(ctx)
	if err != nil {
		return err
	}
	defer stopJobs()
	defer s.closeListeners()
	// The app server listens first: its address makes the public URL the
	// login redirects to, which the handlers need.
	var app http.Handler
	if _, err := s.listenApp("app", cfg.Listen, appTLS(cfg.TLS), func(bound string) (h http.Handler, err error) {
		app, err = s.buildHandlers(ctx, env, verifier, bound)
		return app, err
	}); err != nil {
		return err
	}
	if err := s.listenProbes(); err != nil {
		return err
	}
	if err := s.listenLedgerAPI(verifier); err != nil {
		return err
	}
	if err := s.listenLocalNet(ctx, env, verifier, app); err != nil { // localnet.go
		return err
	}
	errc := s.startServers(ctx)
	s.announceReady()
	return s.wait(errc)
}

// serving is what serve's steps build and share.
type serving struct {
	cfg      Config
	warnings []string // weakened security, from the configuration check
	log      *slog.Logger
	stdout   io.Writer
	opts     serveOptions
	start    time.Time

	m         *metrics // nil with metrics off
	observers []web.Middleware
	db        *store.DB
	l         *ledger.Ledger
	// w are l's workflow packages, built once (workflows.New).
	w *workflows.Set
	// provider is --localnet's app provider validator's (localnet.go).
	provider *workflows.Set
	// checks are the health checks, one per dependency.
	checks    map[string]web.HealthChecker
	health    http.Handler
	jobStatus func() []handlers.JobStatus
	servers   []server
	ready     readyAddrs
	url       string // the public URL, with a trailing slash
	// ledgerAPIs are the validators' JSON Ledger APIs (none when off);
	// their async submissions finish before the database closes.
	ledgerAPIs []*ledgerapi.Server
}

// server is one listening HTTP server: app, health or metrics.
type server struct {
	name string
	srv  *http.Server
	ln   net.Listener
}

// loadServeConfig parses serve's flags and reads and checks the
// configuration; the warnings are settings that weaken security.
func loadServeConfig(args []string, env envVars, stderr io.Writer) (Config, []string, error) {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var c commonFlags
	c.register(fs)
	listen := fs.String("listen", "", "app port address (default :8080)")
	healthListen := fs.String("health-listen", "", "health port address (default :5003)")
	metricsListen := fs.String("metrics-listen", "", "metrics port address (default :10013)")
	ledgerAPIListen := fs.String("ledger-api-listen", "", `JSON Ledger API address (default :7575; "off" turns it off)`)
	localNet := registerLocalNetFlags(fs) // localnet.go
	seed := fs.String("seed", "", "development network: create what this scenario file describes before serving (docs/devnet.md)")
	if err := fs.Parse(args); err != nil {
		return Config{}, nil, err
	}
	cfg, warnings, err := c.checked(env, func(cfg *Config) {
		cfg.Seed = *seed
		localNet.apply(cfg)
		if *listen != "" {
			cfg.Listen = *listen
		}
		if *healthListen != "" {
			cfg.HealthListen = *healthListen
		}
		if *metricsListen != "" {
			cfg.Metrics.Listen = *metricsListen
		}
		switch *ledgerAPIListen {
		case "":
		case "off":
			cfg.LedgerAPIListen = ""
		default:
			cfg.LedgerAPIListen = *ledgerAPIListen
		}
	})
	if err == nil && cfg.Seed != "" && !cfg.DevNet() {
		err = fmt.Errorf("--seed: scenarios are only for a development network (network: devnet), this is %s", cfg.Network)
	}
	return cfg, warnings, err
}

// logConfig logs what the operator should know about the configuration.
func (s *serving) logConfig() {
	for _, w := range s.warnings {
		s.log.Warn("configuration weakens security: " + w)
	}
	if notes := s.cfg.networkNotes(); len(notes) > 0 {
		s.log.Info("multi-validator settings accepted but ignored: the embedded network has one validator, no sponsor, scan or sequencers",
			"ignored", notes)
	}
	if len(s.cfg.Ignored) > 0 {
		s.log.Warn("ADDITIONAL_CONFIG variables accepted but ignored", "vars", s.cfg.Ignored)
	}
}

// startMetrics creates the metrics registry and the HTTP observer, when
// metrics are on.
func (s *serving) startMetrics() {
	if !s.cfg.MetricsEnabled() {
		return
	}
	s.m = newMetrics(s.cfg.NativeHistograms())
	s.observers = append(s.observers, web.Metrics(s.m.reg, s.cfg.NativeHistograms()))
}

// ledgerConfig is the ledger's part of the configuration, the same for
// the server and the devnet commands (which open the ledger as a
// development network), so a seed from either onboards users alike.
func (c Config) ledgerConfig() ledger.Config {
	return ledger.Config{
		OperatorHint: c.ValidatorPartyHint, AdminUsers: c.ValidatorWalletUsers, DevNet: c.DevNet(),
		MergeDelegationAtOnboarding: c.mergeAtOnboarding(),
		PreparedTTL:                 c.ExternalPartyPreparedTTL,
		UserCacheTTL:                time.Duration(c.UserCacheTTL),
		SnapshotDir:                 c.SnapshotDir,
		Offers:                      c.Offers.limits(),
		ExerciseFacts:               apiread.ExerciseFacts,
	}
}

// openLedger opens (on first start, creates) the ledger, observed by the
// metrics when they are on.
func (s *serving) openLedger(ctx context.Context) error {
	lcfg := s.cfg.ledgerConfig()
	lcfg.Writer = pgbatch.For(s.db)
	if s.m != nil {
		lcfg.Observer = s.m
		s.m.watchDB(s.db.DB.DB, "ccwallet")
	}
	l, err := ledger.Open(ctx, s.db, lcfg, s.log)
	if err != nil {
		return err
	}
	if s.m != nil {
		s.m.watchOperator(l, s.log)
	}
	s.l = l
	s.w = workflows.New(l)
	s.checks = map[string]web.HealthChecker{"database": l.Ping}
	return nil
}

// authVerifier checks the API's bearer tokens.
func (s *serving) authVerifier() (*web.Verifier, error) {
	cfg := s.cfg
	authCfg := web.AuthConfig{
		Audience: cfg.Auth.Audience, Issuer: cfg.Auth.Issuer, JWKSURL: cfg.Auth.JWKSURL, DisableAuth: cfg.DisableAuth,
		Leeway: 30 * time.Second, HTTPClient: outboundClient(), UserClaim: cfg.OIDC.userClaim(),
	}
	if cfg.DevNet() {
		authCfg.StaticKeys = map[string]crypto.PublicKey{devKeyID: devKey().Public()}
	}
	authCfg.SharedSecret = cfg.localNetAuth()
	return web.NewVerifier(authCfg, s.log)
}

// startJobs starts the automations (automations.go): enableWallet: false
// leaves the wallet's out, the network's run on. stop stops them.
func (s *serving) startJobs(ctx context.Context) (stop func(), err error) {
	var others []*workflows.Set
	if s.provider != nil {
		others = append(others, s.provider)
	}
	sched, err := startAutomations(ctx, s.w, others, replicas.Leases(s.db), s.cfg, s.m, s.log)
	if err != nil {
		return nil, err
	}
	s.jobStatus = jobStatuses(sched)
	// Fails when the scheduler stopped or a job failed
	// jobs.DefaultMaxConsecutiveFailures times in a row.
	s.checks["scheduler"] = sched.Check
	return func() { stopAutomations(sched, s.log) }, nil
}

// listen adds a server listening on addr and returns the address it is
// bound to; it serves once startServers runs.
func (s *serving) listen(name, addr string, tlsCfg *web.TLSConfig, h http.Handler) (string, error) {
	lim := s.cfg.Web.clientLimits()
	srv, err := web.NewServer(web.ServerConfig{Addr: addr, TLS: tlsCfg, Limits: lim}, h, s.log)
	if err != nil {
		return "", err
	}
	if f := s.opts.connState; f != nil {
		srv.ConnState = func(c net.Conn, st http.ConnState) { f(name, c, st) }
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return "", fmt.Errorf("listen on %s (%s): %w", addr, name, err)
	}
	s.servers = append(s.servers, server{name, srv, web.LimitConns(ln, lim)})
	return ln.Addr().String(), nil
}

// listenApp adds a validator's app server on addr: build makes its
// handler once the bound address is known (the web wallet's URL derives
// from it), guarded by the client limits. It returns the bound address.
func (s *serving) listenApp(name, addr string, tlsCfg *web.TLSConfig, build func(bound string) (http.Handler, error)) (string, error) {
	bound, err := s.listen(name, addr, tlsCfg, http.NotFoundHandler())
	if err != nil {
		return "", err
	}
	srv := s.servers[len(s.servers)-1].srv
	h, err := build(bound)
	if err != nil {
		return "", err
	}
	srv.Handler = web.Guard(s.cfg.Web.clientLimits(), h)
	return bound, nil
}

// closeListeners closes the listeners of servers that never served (serve
// failed before startServers); Serve closes the others.
func (s *serving) closeListeners() {
	for _, srv := range s.servers {
		srv.ln.Close()
	}
}

// buildHandlers builds the health handler and the app port's, with the
// web wallet (UI: sessions, OIDC login, dev provider; see ui.go) at the
// public URL the app server's bound address gives unless configured.
func (s *serving) buildHandlers(ctx context.Context, env envVars, verifier *web.Verifier, bound string) (http.Handler, error) {
	cfg := s.cfg
	if c := verifier.JWKSCheck(); c != nil {
		s.checks["jwks"] = c // degraded, never 503, while the JWKS is down
	}
	s.health = web.NewHealthHandler(web.HealthConfig{Checks: s.checks, Log: s.log, Warnings: s.warnings})
	s.ready = readyAddrs{App: bound, Operator: string(s.l.Operator())}
	s.url = cfg.PublicURL
	if s.url == "" {
		scheme := "http"
		if cfg.TLS != nil {
			scheme = "https"
		}
		s.url = scheme + "://" + displayAddr(s.ready.App) + "/"
	}
	if !cfg.WalletEnabled() {
		s.log.Info("wallet disabled (enableWallet: false): its pages, API and automations are off; the admin API, registry, health and metrics run")
	}
	return s.appHandler(ctx, env, verifier, s.w, s.url, true)
}

// appHandler is the app port's handler of the validator whose workflows
// are w, with its web wallet at url; hint prints the development
// login's hint when its provider runs.
func (s *serving) appHandler(ctx context.Context, env envVars, verifier *web.Verifier, w *workflows.Set, url string, hint bool) (http.Handler, error) {
	cfg := s.cfg
	var ui *handlers.UI
	if cfg.WalletEnabled() {
		var err error
		if ui, err = newUI(ctx, cfg, env.get, strings.TrimSuffix(url, "/"), replicas.Sessions(s.db), s.log); err != nil {
			return nil, err
		}
		if hint && ui != nil && ui.DevProvider != nil {
			fmt.Fprintln(s.stdout, devLoginHint())
		}
	}
	return handlers.New(w.Ledger, handlers.Config{Auth: verifier, Observe: s.observers, UI: ui, Jobs: s.jobStatus, Network: cfg.networkSettings(time.Now()),
		Warnings:  s.warnings,
		Shutdown:  ctx.Done(),
		Limiter:   web.NewLimiter(web.RateLimit{Burst: cfg.RateLimit.Burst, Per: cfg.RateLimit.Per.Std()}),
		WalletOff: !cfg.WalletEnabled(), Workflows: w}, s.log).Routes(s.health), nil
}

// listenProbes adds the health and metrics servers, when on.
func (s *serving) listenProbes() error {
	var err error
	if s.cfg.HealthEnabled() {
		if s.ready.Health, err = s.listen("health", s.cfg.HealthListen, appTLS(s.cfg.HealthTLS), s.health); err != nil {
			return err
		}
	}
	if s.m != nil {
		s.ready.Metrics, err = s.listen("metrics", s.cfg.Metrics.Listen, appTLS(s.cfg.Metrics.TLS), web.MetricsHandler(s.m.reg))
	}
	return err
}

// listenLedgerAPI adds the JSON Ledger API's server (package ledgerapi),
// unless its address is empty.
func (s *serving) listenLedgerAPI(verifier *web.Verifier) error {
	if s.cfg.LedgerAPIListen == "" {
		return nil
	}
	var err error
	s.ready.LedgerAPI, err = s.listenLedgerAPIOf("ledger-api", s.cfg.LedgerAPIListen, appTLS(s.cfg.LedgerAPITLS), verifier, s.w)
	return err
}

// listenLedgerAPIOf adds the JSON Ledger API server of the validator
// whose workflows are w on addr and returns the bound address.
func (s *serving) listenLedgerAPIOf(name, addr string, tlsCfg *web.TLSConfig, verifier *web.Verifier, w *workflows.Set) (string, error) {
	api := ledgerapi.New(w.Ledger, ledgerapi.Config{Auth: verifier, Observe: s.observers, Workflows: w, DurableAsync: s.cfg.DurableAsync(),
		Limiter: web.NewLimiter(web.RateLimit{Burst: s.cfg.RateLimit.Burst, Per: s.cfg.RateLimit.Per.Std()})}, s.log)
	s.ledgerAPIs = append(s.ledgerAPIs, api)
	return s.listen(name, addr, tlsCfg, api.Handler())
}

// startServers serves every server until ctx is done; each one's result
// comes on the channel.
func (s *serving) startServers(ctx context.Context) <-chan error {
	errc := make(chan error, len(s.servers))
	for _, srv := range s.servers {
		go func() { errc <- web.Serve(ctx, srv.name, srv.srv, srv.ln, s.log) }()
	}
	return errc
}

// announceReady tunes the collector and tells the log, the terminal and
// opts.ready that the wallet is ready.
func (s *serving) announceReady() {
	// The collector's target rises only now: start-up's garbage is
	// collected at Go's default, so the idle process stays small.
	gogc, gogcFrom := tuneGC()
	s.log.Info("ccwallet ready", "url", s.url, "health", s.ready.Health, "metrics", s.ready.Metrics, "ledger_api", s.ready.LedgerAPI, "engine", s.db.Engine,
		"network", s.cfg.Network, "operator", s.l.Operator(), "wallet", s.cfg.WalletEnabled(),
		"startup", time.Since(s.start).Round(time.Millisecond), "gogc", gogc, "gogc_from", gogcFrom,
		"timer_slack", timerslack.Now()) // a thread's: every thread's once timerslack applied it
	fmt.Fprintf(s.stdout, "ccwallet is ready: open %s\n", s.url)
	if s.opts.ready != nil {
		s.opts.ready(s.ready)
	}
}

// wait returns once every server has shut down (ctx done, or one failed),
// with the first error.
func (s *serving) wait(errc <-chan error) error {
	var first error
	for range s.servers {
		if err := <-errc; err != nil && first == nil {
			first = err
		}
	}
	s.servers = nil // closed by Serve
	for _, a := range s.ledgerAPIs {
		a.Wait()
	}
	s.log.Info("ccwallet stopped")
	return first
}
