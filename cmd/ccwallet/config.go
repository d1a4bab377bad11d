package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/jobs"
	"github.com/ccwallet/ccwallet/web"
	"gopkg.in/yaml.v3"
)

// Config is the operator's configuration: a values file in the shape of
// the deployment chart's (keys as in the mission's value-file tables), then
// environment variables, then flags, each overriding the one before.
//
// Each area has its own nested struct with its own validate method, so a
// feature adds one field here, one block in validate and one in serve.
type Config struct {
	// Identity of the validator.
	ValidatorPartyHint   string   `yaml:"validatorPartyHint"`
	NodeIdentifier       string   `yaml:"nodeIdentifier"`
	ValidatorWalletUsers []string `yaml:"validatorWalletUsers"`
	ContactPoint         string   `yaml:"contactPoint"`

	// EnableWallet turns the wallet HTTP routes and automations on (default).
	EnableWallet *bool      `yaml:"enableWallet"`
	DisableAuth  bool       `yaml:"disableAuth"`
	Auth         AuthConfig `yaml:"auth"`

	Persistence Persistence `yaml:"persistence"`
	Migration   Migration   `yaml:"migration"`
	// DB is the database volume's size and class (dbvolume.go).
	DB DBVolume `yaml:"db"`

	// Multi-validator network settings: accepted and validated, ignored by
	// the embedded network (see Config.networkNotes).
	SvSponsorAddress                string `yaml:"svSponsorAddress"`
	ScanAddress                     string `yaml:"scanAddress"`
	NonSvValidatorTrustSingleScan   bool   `yaml:"nonSvValidatorTrustSingleScan"`
	UseSequencerConnectionsFromScan *bool  `yaml:"useSequencerConnectionsFromScan"`
	DecentralizedSynchronizerURL    string `yaml:"decentralizedSynchronizerUrl"`
	// OnboardingSecret is the sponsor's one-time secret (ONBOARDING_SECRET);
	// see checkOnboardingSecret for the formats that carry an issue time.
	OnboardingSecret string `yaml:"onboardingSecret"`

	// Automations (section 1.8 and 8 of the mission).
	ParticipantPruningSchedule *PruningSchedule            `yaml:"participantPruningSchedule"`
	WalletSweep                map[string]SweepConfig      `yaml:"walletSweep"`
	AutoAcceptTransfers        map[string]AutoAcceptConfig `yaml:"autoAcceptTransfers"`
	Topup                      TopupConfig                 `yaml:"topup"`

	// Observability.
	Metrics            MetricsConfig `yaml:"metrics"`
	EnableHealthProbes *bool         `yaml:"enableHealthProbes"`

	// OIDC is the web wallet's login (cmd/ccwallet/ui.go).
	OIDC OIDCConfig `yaml:"oidc"`
	// Web bounds the web wallet's logins and form posts (ui.go).
	Web WebConfig `yaml:"web"`

	// Network is "devnet" (faucet, time control, dev identity provider) or
	// "production".
	Network string `yaml:"network"`
	// SnapshotDir is where a development network's SQLite snapshots live
	// (default: "snapshots" beside the database file); Postgres keeps
	// them in the database. See devnet.go.
	SnapshotDir string `yaml:"snapshotDir"`
	// Listen is the app port's address; HealthListen serves /readyz and
	// /livez (port 5003, as every Splice app).
	Listen       string `yaml:"listen"`
	HealthListen string `yaml:"healthListen"`
	// TLS, when set, serves the app port over TLS (optionally mTLS);
	// HealthTLS the health port.
	TLS       *TLSConfig `yaml:"tls"`
	HealthTLS *TLSConfig `yaml:"healthTls"`
	// LedgerAPIListen is the JSON Ledger API v2's address (port 7575, as a
	// participant's JSON API commonly runs); empty turns it off.
	// LedgerAPITLS, when set, serves it over TLS (optionally mTLS).
	LedgerAPIListen string     `yaml:"ledgerApiListen"`
	LedgerAPITLS    *TLSConfig `yaml:"ledgerApiTls"`
	// LedgerAPIDurableAsync keeps every accepted asynchronous submission
	// in the database before answering it (ledgerapi/durable.go).
	LedgerAPIDurableAsync *bool `yaml:"ledgerApiDurableAsync"`
	// LocalNet serves LocalNet's layout, two validators on its ports with
	// its test authentication (localnet.go; serve --localnet); a
	// development network's only. localNetAddrs, when set, replaces its
	// fixed addresses (serve --localnet-listen, for tests).
	LocalNet      bool `yaml:"localNet"`
	localNetAddrs []string
	// PublicURL is the address users open, printed at start.
	PublicURL string `yaml:"publicUrl"`
	LogFormat string `yaml:"logFormat"`
	LogLevel  string `yaml:"logLevel"`

	// Ignored lists the ADDITIONAL_CONFIG_* variables that were set but mean
	// nothing here; serve logs them. Not a file key.
	Ignored []string `yaml:"-"`
	// Seed is serve --seed's scenario file (a development network's only).
	Seed string `yaml:"-"`
	// disableAuthByEnv: WALLET_DISABLE_AUTH turned auth off, not the
	// values file (refused in production, see Config.check).
	disableAuthByEnv bool
	// RateLimit bounds each authenticated API user's requests: burst
	// requests, refilled at burst per `per`. burst 0 turns it off.
	RateLimit RateLimitConfig `yaml:"rateLimit"`
	// Automation configures the background jobs (participantPruningSchedule
	// is above); see automations.go.
	Automation AutomationConfig `yaml:"automation"`
	// ExternalPartyPreparedTTL is how long an external party may submit a
	// prepared transaction (default 10m).
	ExternalPartyPreparedTTL time.Duration `yaml:"externalPartyPreparedTtl"`
	// UserCacheTTL is how long an onboarded user and their rights, once
	// read, are trusted on this replica (default 5s, Canton's user
	// management cache-expiry-after-write): the longest another replica's
	// offboarding or revoked right may go unseen here.
	UserCacheTTL Duration `yaml:"userCacheTtl"`
	// Offers bounds transfer offers (offers.go).
	Offers OffersConfig `yaml:"offers"`
}

// RateLimitConfig is rateLimit: {burst, per}.
type RateLimitConfig struct {
	Burst int      `yaml:"burst"`
	Per   Duration `yaml:"per"`
}

// AuthConfig holds auth.audience, auth.jwksUrl and auth.issuer.
// auth.targetAudience (the participant chart's name) is accepted too and
// used when audience is not set.
type AuthConfig struct {
	Audience       string `yaml:"audience"`
	TargetAudience string `yaml:"targetAudience"`
	JWKSURL        string `yaml:"jwksUrl"`
	Issuer         string `yaml:"issuer"`
}

// Persistence is the database binding. URL wins; otherwise host, port,
// databaseName and schema build a Postgres URL; with neither, the embedded
// SQLite file is used.
//
// The password comes from password, WALLET_DATABASE_PASSWORD, or
// secretName: the path of a file holding it (a mounted secret), or else the
// name of an environment variable holding it.
type Persistence struct {
	URL          string `yaml:"url"`
	Host         string `yaml:"host"`
	Port         int    `yaml:"port"`
	DatabaseName string `yaml:"databaseName"`
	Schema       string `yaml:"schema"`
	User         string `yaml:"user"`
	Password     string `yaml:"password"`
	SecretName   string `yaml:"secretName"`
	SQLitePath   string `yaml:"sqlitePath"`

	// SSL: ssl true means verify-full unless sslmode says otherwise.
	SSL         bool   `yaml:"ssl"`
	SSLMode     string `yaml:"sslmode"`
	SSLRootCert string `yaml:"sslrootcert"`
	SSLCert     string `yaml:"sslcert"`
	SSLKey      string `yaml:"sslkey"`

	// Connection pool (Postgres).
	MaxOpenConns    int      `yaml:"maxOpenConns"`
	MaxIdleConns    int      `yaml:"maxIdleConns"`
	ConnMaxLifetime Duration `yaml:"connMaxLifetime"`
}

// Migration is migration.id and migration.migrating.
type Migration struct {
	ID        int64 `yaml:"id"`
	Migrating bool  `yaml:"migrating"`
}

// PruningSchedule is participantPruningSchedule. Pruning is off unless it
// is set.
type PruningSchedule struct {
	Cron        string   `yaml:"cron"`
	MaxDuration Duration `yaml:"maxDuration"`
	Retention   Duration `yaml:"retention"`
}

// SweepConfig is one walletSweep entry, keyed by the sender party.
type SweepConfig struct {
	MaxBalanceUSD          coin.Amount `yaml:"maxBalanceUSD"`
	MinBalanceUSD          coin.Amount `yaml:"minBalanceUSD"`
	Receiver               string      `yaml:"receiver"`
	UseTransferPreapproval bool        `yaml:"useTransferPreapproval"`
}

// UnmarshalYAML reads the USD amounts exactly (never through a float).
func (s *SweepConfig) UnmarshalYAML(n *yaml.Node) error {
	var raw struct {
		MaxBalanceUSD          yaml.Node `yaml:"maxBalanceUSD"`
		MinBalanceUSD          yaml.Node `yaml:"minBalanceUSD"`
		Receiver               string    `yaml:"receiver"`
		UseTransferPreapproval bool      `yaml:"useTransferPreapproval"`
	}
	// Node.Decode does not refuse unknown keys as the file's decoder does.
	if n.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(n.Content); i += 2 {
			switch k := n.Content[i]; k.Value {
			case "maxBalanceUSD", "minBalanceUSD", "receiver", "useTransferPreapproval":
			default:
				return fmt.Errorf("line %d: field %s not found in type main.SweepConfig", k.Line, k.Value)
			}
		}
	}
	if err := n.Decode(&raw); err != nil {
		return err
	}
	var err error
	if s.MaxBalanceUSD, err = yamlAmount(&raw.MaxBalanceUSD, "maxBalanceUSD"); err != nil {
		return err
	}
	if s.MinBalanceUSD, err = yamlAmount(&raw.MinBalanceUSD, "minBalanceUSD"); err != nil {
		return err
	}
	s.Receiver, s.UseTransferPreapproval = raw.Receiver, raw.UseTransferPreapproval
	return nil
}

// MarshalYAML prints the amounts as numbers.
func (s SweepConfig) MarshalYAML() (any, error) {
	return map[string]any{
		"maxBalanceUSD":          yamlNumber(s.MaxBalanceUSD),
		"minBalanceUSD":          yamlNumber(s.MinBalanceUSD),
		"receiver":               s.Receiver,
		"useTransferPreapproval": s.UseTransferPreapproval,
	}, nil
}

func yamlAmount(n *yaml.Node, key string) (coin.Amount, error) {
	if n.Kind == 0 {
		return coin.Amount{}, fmt.Errorf("line %d: %s is required", n.Line, key)
	}
	if n.Kind != yaml.ScalarNode || (n.Tag != "!!int" && n.Tag != "!!float" && n.Tag != "!!str") {
		return coin.Amount{}, fmt.Errorf("line %d: %s must be a number", n.Line, key)
	}
	a, err := coin.ParseAmount(n.Value)
	if err != nil {
		return coin.Amount{}, fmt.Errorf("line %d: %s: %v", n.Line, key, err)
	}
	return a, nil
}

func yamlNumber(a coin.Amount) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Value: a.Short()}
}

// AutoAcceptConfig is one autoAcceptTransfers entry, keyed by the receiver.
type AutoAcceptConfig struct {
	FromParties []string `yaml:"fromParties"`
}

// TopupConfig is topup: traffic top-ups of the operator's wallet.
type TopupConfig struct {
	Enabled          bool     `yaml:"enabled"`
	TargetThroughput int64    `yaml:"targetThroughput"` // bytes per second
	MinTopupInterval Duration `yaml:"minTopupInterval"`
}

// Active reports whether top-ups run: enabled: false or a zero throughput
// turn them off.
func (t TopupConfig) Active() bool { return t.Enabled && t.TargetThroughput > 0 }

// MetricsConfig is metrics.enable plus where /metrics listens.
type MetricsConfig struct {
	Enable *bool  `yaml:"enable"`
	Listen string `yaml:"listen"`
	// NativeHistograms is on by default, off when
	// ADDITIONAL_CONFIG_DISABLE_NATIVE_HISTOGRAMS asks for classic ones.
	NativeHistograms *bool `yaml:"nativeHistograms"`
	// TopologyPollingInterval comes from
	// ADDITIONAL_CONFIG_TOPOLOGY_METRICS_EXPORT; 0 means off.
	TopologyPollingInterval Duration `yaml:"topologyPollingInterval"`
	// TLS, when set, serves /metrics over TLS.
	TLS *TLSConfig `yaml:"tls"`
}

// TLSConfig is a server's TLS block (tls, healthTls, metrics.tls), with
// the Canton key names.
type TLSConfig struct {
	CertChainFile       string `yaml:"cert-chain-file"`
	PrivateKeyFile      string `yaml:"private-key-file"`
	TrustCollectionFile string `yaml:"trust-collection-file"`
	ClientAuth          struct {
		Type string `yaml:"type"` // none (default), optional or require
		// AdminClient is the certificate our own clients (ccwallet
		// external --config) present, as Canton's admin-client.
		AdminClient *CertPair `yaml:"admin-client,omitempty"`
	} `yaml:"client-auth"`
	// AdminClient at tls level is accepted too (the seed's key name
	// without its client-auth parent).
	AdminClient                  *CertPair `yaml:"admin-client,omitempty"`
	MinimumServerProtocolVersion string    `yaml:"minimum-server-protocol-version"`
	// Ciphers restricts the TLS 1.2 cipher suites (IANA names).
	Ciphers []string `yaml:"ciphers,omitempty"`
}

// CertPair is a certificate chain and its PKCS#8 private key (PEM files).
type CertPair struct {
	CertChainFile  string `yaml:"cert-chain-file"`
	PrivateKeyFile string `yaml:"private-key-file"`
}

// adminClient is the admin-client pair from either place, nil if unset.
func (t *TLSConfig) adminClient() *CertPair {
	if t == nil {
		return nil
	}
	if t.ClientAuth.AdminClient != nil {
		return t.ClientAuth.AdminClient
	}
	return t.AdminClient
}

// Duration is a time.Duration written as in Go ("90s", "1h30m") or in days
// ("30d"), as retention periods usually are.
type Duration time.Duration

// Std returns the time.Duration.
func (d Duration) Std() time.Duration { return time.Duration(d) }

// UnmarshalYAML parses the string form.
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return fmt.Errorf("line %d: want a duration such as 5m or 30d", n.Line)
	}
	v, err := parseDuration(n.Value)
	if err != nil {
		return fmt.Errorf("line %d: %v", n.Line, err)
	}
	*d = Duration(v)
	return nil
}

// MarshalYAML prints the Go form.
func (d Duration) MarshalYAML() (any, error) { return time.Duration(d).String(), nil }

func parseDuration(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if days, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.ParseInt(days, 10, 32)
		if err != nil || n < 0 {
			return 0, fmt.Errorf("bad duration %q: want e.g. 30d, 12h or 5m", s)
		}
		return time.Duration(n) * 24 * time.Hour, nil
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("bad duration %q: want e.g. 30d, 12h or 5m", s)
	}
	if v < 0 {
		return 0, fmt.Errorf("bad duration %q: must not be negative", s)
	}
	return v, nil
}

// DefaultAudience is the token audience of the embedded default, the
// real network's default.
const DefaultAudience = "https://canton.network.global"

func defaultConfig() Config {
	return Config{
		ValidatorPartyHint:   "ccwallet-validator-1",
		ValidatorWalletUsers: []string{"admin"},
		Network:              "devnet",
		Listen:               ":8080",
		HealthListen:         ":5003",
		LedgerAPIListen:      ":7575",
		LogFormat:            "text",
		LogLevel:             "info",
		Auth:                 AuthConfig{Audience: DefaultAudience},
		Topup:                TopupConfig{Enabled: true, TargetThroughput: 20000, MinTopupInterval: Duration(time.Minute)},
		Metrics:              MetricsConfig{Listen: ":10013"},
		// Splice's validator allows 120 per minute per client; the Wallet
		// Gateway had to raise its limit for programmatic clients, so the
		// default is more generous and configurable.
		RateLimit: RateLimitConfig{Burst: 600, Per: Duration(time.Minute)},
		Web:       defaultWebConfig(),
	}
}

// readConfig reads the values file (if any), then the environment,
// without validating (flags still follow).
func readConfig(path string, env envVars) (Config, error) {
	cfg := defaultConfig()
	if path != "" {
		b, err := os.ReadFile(path)
		if err != nil {
			return cfg, fmt.Errorf("read config: %w", err)
		}
		if err := decodeYAML(b, &cfg); err != nil {
			return cfg, fmt.Errorf("config %s: %w", path, invalidConfig(err))
		}
	}
	if err := cfg.applyEnv(env); err != nil {
		return cfg, err
	}
	if cfg.Auth.TargetAudience != "" && (cfg.Auth.Audience == "" || cfg.Auth.Audience == DefaultAudience) {
		cfg.Auth.Audience = cfg.Auth.TargetAudience
	}
	return cfg, nil
}

// decodeYAML decodes strictly (unknown keys are errors) and rewrites
// yaml's "line N: ..." messages to name the key at that line.
func decodeYAML(b []byte, cfg *Config) error {
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	err := dec.Decode(cfg)
	if err == nil || errors.Is(err, io.EOF) {
		return nil
	}
	var root yaml.Node
	if yaml.Unmarshal(b, &root) != nil {
		return err // a syntax error already says where
	}
	keys := map[int]string{}
	keyLines(&root, "", keys)
	var msgs []string
	var te *yaml.TypeError
	if errors.As(err, &te) {
		msgs = te.Errors
	} else {
		msgs = []string{err.Error()}
	}
	for i, m := range msgs {
		msgs[i] = describeYAMLError(m, keys)
	}
	return errors.New(strings.Join(msgs, "\n"))
}

var yamlLineRE = regexp.MustCompile(`^line (\d+): (.*)$`)
var unknownFieldRE = regexp.MustCompile(`^field (\S+) not found in type`)

func describeYAMLError(m string, keys map[int]string) string {
	sub := yamlLineRE.FindStringSubmatch(m)
	if sub == nil {
		return m
	}
	line, _ := strconv.Atoi(sub[1])
	rest := sub[2]
	// A nested decoder (UnmarshalYAML) prefixes its own line.
	if inner := yamlLineRE.FindStringSubmatch(rest); inner != nil {
		line, _ = strconv.Atoi(inner[1])
		rest = inner[2]
	}
	key := keys[line]
	if f := unknownFieldRE.FindStringSubmatch(rest); f != nil {
		return fmt.Sprintf("%s (line %d): unknown key", key, line)
	}
	if key == "" {
		return m
	}
	rest = strings.Replace(rest, "cannot unmarshal", "wrong type: cannot read", 1)
	return fmt.Sprintf("%s (line %d): %s", key, line, rest)
}

// keyLines maps line numbers to the dotted key path of the key or scalar
// value on that line; deeper keys win.
func keyLines(n *yaml.Node, path string, out map[int]string) {
	switch n.Kind {
	case yaml.DocumentNode:
		for _, c := range n.Content {
			keyLines(c, path, out)
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			p := k.Value
			if path != "" {
				p = path + "." + k.Value
			}
			out[k.Line] = p
			out[v.Line] = p
			keyLines(v, p, out)
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			p := fmt.Sprintf("%s[%d]", path, i)
			out[c.Line] = p
			keyLines(c, p, out)
		}
	}
}

// envVars is the process environment as a map.
type envVars map[string]string

// get is os.Getenv over the map.
func (e envVars) get(k string) string { return e[k] }

func newEnv(environ []string) envVars {
	e := envVars{}
	for _, kv := range environ {
		if k, v, ok := strings.Cut(kv, "="); ok {
			e[k] = v
		}
	}
	return e
}

// Env variables of the mission's compose deployment, and the wallet's own.
const (
	envDisableNativeHistograms = "ADDITIONAL_CONFIG_DISABLE_NATIVE_HISTOGRAMS"
	envTopologyMetricsExport   = "ADDITIONAL_CONFIG_TOPOLOGY_METRICS_EXPORT"
	classicHistogramsSetting   = "canton.monitoring.metrics.histograms=[]"
	topologyPollingSetting     = "canton.validator-apps.validator_backend.automation.topology-metrics-polling-interval"
)

func (c *Config) applyEnv(env envVars) error {
	str := map[string]*string{
		"WALLET_DATABASE_URL":      &c.Persistence.URL,
		"WALLET_DATABASE_USER":     &c.Persistence.User,
		"WALLET_DATABASE_PASSWORD": &c.Persistence.Password,
		"WALLET_LISTEN":            &c.Listen,
		"WALLET_HEALTH_LISTEN":     &c.HealthListen,
		"WALLET_LEDGER_API_LISTEN": &c.LedgerAPIListen,
		"WALLET_METRICS_LISTEN":    &c.Metrics.Listen,
		"WALLET_NETWORK":           &c.Network,
		"WALLET_SNAPSHOT_DIR":      &c.SnapshotDir,
		"WALLET_PUBLIC_URL":        &c.PublicURL,
		"WALLET_LOG_FORMAT":        &c.LogFormat,
		"WALLET_LOG_LEVEL":         &c.LogLevel,
		"SPONSOR_SV_URL":           &c.SvSponsorAddress,
		"TRUSTED_SCAN_URL":         &c.ScanAddress,
		"ONBOARDING_SECRET":        &c.OnboardingSecret,
	}
	for k, p := range str {
		if v := env[k]; v != "" {
			*p = v
		}
	}
	if v := env["WALLET_DISABLE_AUTH"]; v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return fmt.Errorf("WALLET_DISABLE_AUTH: want true or false, not %q", v)
		}
		c.disableAuthByEnv = b && !c.DisableAuth
		c.DisableAuth = b
	}
	if v := env["MIGRATION_ID"]; v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return fmt.Errorf("MIGRATION_ID: want a whole number, not %q", v)
		}
		c.Migration.ID = n
	}
	if v := env["TARGET_TRAFFIC_THROUGHPUT"]; v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return fmt.Errorf("TARGET_TRAFFIC_THROUGHPUT: want bytes per second as a whole number, not %q", v)
		}
		c.Topup.TargetThroughput = n
	}
	if v := env["MIN_TRAFFIC_TOPUP_INTERVAL"]; v != "" {
		d, err := parseDuration(v)
		if err != nil {
			return fmt.Errorf("MIN_TRAFFIC_TOPUP_INTERVAL: %v", err)
		}
		c.Topup.MinTopupInterval = Duration(d)
	}
	if v := env[envDisableNativeHistograms]; v != "" {
		if strings.Join(strings.Fields(v), "") != classicHistogramsSetting {
			return fmt.Errorf("%s: the only supported value is %s, not %q", envDisableNativeHistograms, classicHistogramsSetting, v)
		}
		f := false
		c.Metrics.NativeHistograms = &f
	}
	if v := env[envTopologyMetricsExport]; v != "" {
		k, val, ok := strings.Cut(v, "=")
		if !ok || strings.TrimSpace(k) != topologyPollingSetting {
			return fmt.Errorf("%s: want %s = <duration>, not %q", envTopologyMetricsExport, topologyPollingSetting, v)
		}
		d, err := parseDuration(strings.Trim(strings.TrimSpace(val), `"`))
		if err != nil || d == 0 {
			return fmt.Errorf("%s: want a positive polling interval such as 5m, not %q", envTopologyMetricsExport, val)
		}
		c.Metrics.TopologyPollingInterval = Duration(d)
	}
	c.Ignored = nil
	for k := range env {
		if strings.HasPrefix(k, "ADDITIONAL_CONFIG") && k != envDisableNativeHistograms && k != envTopologyMetricsExport {
			c.Ignored = append(c.Ignored, k)
		}
	}
	slices.Sort(c.Ignored)
	return nil
}

// partyHintRE is <organization>-<function>-<enumerator>, e.g.
// ccwallet-validator-1; the organization may itself contain dashes.
var partyHintRE = regexp.MustCompile(`^[A-Za-z0-9_]+(-[A-Za-z0-9_]+)+-[0-9]+$`)

// validate checks everything and reports every problem, one per key.
func (c Config) validate(now time.Time, env envVars) error {
	var errs []error
	add := func(key, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s: %s", key, fmt.Sprintf(format, args...)))
	}
	switch c.Network {
	case "devnet", "production":
	default:
		add("network", "must be devnet or production, not %q", c.Network)
	}
	if len(c.ValidatorWalletUsers) == 0 {
		add("validatorWalletUsers", "at least one wallet admin user is required")
	}
	for i, u := range c.ValidatorWalletUsers {
		if strings.TrimSpace(u) == "" {
			add(fmt.Sprintf("validatorWalletUsers[%d]", i), "empty user ID")
		}
	}
	if !partyHintRE.MatchString(c.ValidatorPartyHint) {
		add("validatorPartyHint", "%q is not of the form <organization>-<function>-<enumerator>, e.g. ccwallet-validator-1", c.ValidatorPartyHint)
	} else if err := coin.ValidateHint(c.ValidatorPartyHint); err != nil {
		add("validatorPartyHint", "%v", err)
	}
	if c.Network == "production" && c.Auth.JWKSURL == "" && !c.DisableAuth {
		add("auth.jwksUrl", "required outside the development network")
	}
	checkURL := func(key, v string) {
		if v == "" {
			return
		}
		u, err := url.Parse(v)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			add(key, "%q is not an absolute http(s) URL", v)
		}
	}
	checkURL("auth.jwksUrl", c.Auth.JWKSURL)
	checkURL("publicUrl", c.PublicURL)
	checkURL("svSponsorAddress", c.SvSponsorAddress)
	checkURL("scanAddress", c.ScanAddress)
	checkURL("decentralizedSynchronizerUrl", c.DecentralizedSynchronizerURL)
	if c.NonSvValidatorTrustSingleScan && c.ScanAddress == "" {
		add("scanAddress", "required when nonSvValidatorTrustSingleScan is true (the single trusted scan)")
	}
	if c.UseSequencerConnectionsFromScan != nil && !*c.UseSequencerConnectionsFromScan && c.DecentralizedSynchronizerURL == "" {
		add("decentralizedSynchronizerUrl", "required when useSequencerConnectionsFromScan is false (the single trusted sequencer)")
	}
	if c.Migration.ID < 0 {
		add("migration.id", "must not be negative, got %d", c.Migration.ID)
	}
	if c.OnboardingSecret != "" {
		if err := checkOnboardingSecret(c.OnboardingSecret, now); err != nil {
			add("onboardingSecret (ONBOARDING_SECRET)", "%v", err)
		}
	}
	errs = append(errs, c.Persistence.validate(env.get)...)
	errs = append(errs, c.DB.validate()...)
	if p := c.ParticipantPruningSchedule; p != nil {
		if _, err := jobs.ParseCron(p.Cron); err != nil {
			add("participantPruningSchedule.cron", "%v", err)
		}
		if p.MaxDuration <= 0 {
			add("participantPruningSchedule.maxDuration", "must be a positive duration such as 5m")
		}
		if p.Retention <= 0 {
			add("participantPruningSchedule.retention", "must be a positive duration such as 30d")
		}
	}
	for _, sender := range sortedKeys(c.WalletSweep) {
		s := c.WalletSweep[sender]
		key := "walletSweep." + sender
		if _, err := coin.ParsePartyID(sender); err != nil {
			add(key, "sender: %v", err)
		}
		if _, err := partyOrName(s.Receiver); err != nil {
			add(key+".receiver", "%v", err)
		} else if s.Receiver == sender {
			add(key+".receiver", "must differ from the sender")
		}
		if s.MinBalanceUSD.IsNegative() {
			add(key+".minBalanceUSD", "must not be negative, got %s", s.MinBalanceUSD.Short())
		}
		if s.MaxBalanceUSD.IsNegative() {
			add(key+".maxBalanceUSD", "must not be negative, got %s", s.MaxBalanceUSD.Short())
		}
		if s.MinBalanceUSD.Cmp(s.MaxBalanceUSD) > 0 {
			add(key, "minBalanceUSD %s is greater than maxBalanceUSD %s", s.MinBalanceUSD.Short(), s.MaxBalanceUSD.Short())
		}
	}
	for _, receiver := range sortedKeys(c.AutoAcceptTransfers) {
		key := "autoAcceptTransfers." + receiver
		if _, err := partyOrName(receiver); err != nil { // a name: the name service resolves it
			add(key, "%v", err)
		}
		from := c.AutoAcceptTransfers[receiver].FromParties
		if len(from) == 0 {
			add(key+".fromParties", "list at least one sender party")
		}
		for i, p := range from {
			if _, err := partyOrName(p); err != nil {
				add(fmt.Sprintf("%s.fromParties[%d]", key, i), "%v", err)
			}
		}
	}
	if c.Topup.TargetThroughput < 0 {
		add("topup.targetThroughput", "must not be negative, got %d", c.Topup.TargetThroughput)
	}
	if c.Topup.Active() && c.Topup.MinTopupInterval <= 0 {
		add("topup.minTopupInterval", "must be a positive duration such as 1m")
	}
	if c.TLS != nil {
		errs = append(errs, c.TLS.validate()...)
	}
	errs = append(errs, c.Web.validate()...)
	errs = append(errs, c.Offers.validate(c.Network)...)
	if c.HealthTLS != nil {
		errs = append(errs, c.HealthTLS.validateAt("healthTls")...)
	}
	if c.Metrics.TLS != nil {
		errs = append(errs, c.Metrics.TLS.validateAt("metrics.tls")...)
	}
	if c.LedgerAPITLS != nil {
		errs = append(errs, c.LedgerAPITLS.validateAt("ledgerApiTls")...)
	}
	switch c.LogFormat {
	case "text", "json":
	default:
		add("logFormat", "must be text or json, not %q", c.LogFormat)
	}
	var lvl slog.Level
	if err := lvl.UnmarshalText([]byte(c.LogLevel)); err != nil {
		add("logLevel", "must be debug, info, warn or error, not %q", c.LogLevel)
	}
	if c.RateLimit.Burst < 0 || c.RateLimit.Burst > 0 && c.RateLimit.Per <= 0 {
		add("rateLimit", "burst must be 0 (off) or positive, with a positive per")
	}
	if len(errs) == 0 {
		// The automations' own checks (automations.go), once the keys
		// they read are known to be well-formed.
		if _, err := c.automation(); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

func (p Persistence) validate(getenv func(string) string) []error {
	var errs []error
	add := func(key, format string, args ...any) {
		errs = append(errs, fmt.Errorf("persistence.%s: %s", key, fmt.Sprintf(format, args...)))
	}
	if p.URL != "" && !strings.HasPrefix(p.URL, "postgres://") && !strings.HasPrefix(p.URL, "postgresql://") && p.Host != "" {
		add("url", "a SQLite path cannot be combined with persistence.host")
	}
	if p.Port < 0 || p.Port > 65535 {
		add("port", "%d is not a TCP port", p.Port)
	}
	if p.Host != "" && p.DatabaseName == "" && p.URL == "" {
		add("databaseName", "required with persistence.host (e.g. participant_<MIGRATION_ID>)")
	}
	switch p.SSLMode {
	case "", "disable", "allow", "prefer", "require", "verify-ca", "verify-full":
	default:
		add("sslmode", "must be disable, prefer, require, verify-ca or verify-full, not %q", p.SSLMode)
	}
	if p.SSL && p.SSLMode == "disable" {
		add("sslmode", "disable contradicts ssl: true")
	}
	if (p.SSLMode == "verify-ca" || p.SSLMode == "verify-full") && p.SSLRootCert == "" {
		add("sslrootcert", "required with sslmode %s (the root CA to verify the server against)", p.SSLMode)
	}
	if (p.SSLCert == "") != (p.SSLKey == "") {
		add("sslcert", "sslcert and sslkey go together (client certificate for mutual TLS)")
	}
	for key, f := range map[string]string{"sslrootcert": p.SSLRootCert, "sslcert": p.SSLCert, "sslkey": p.SSLKey} {
		if f != "" {
			if _, err := os.Stat(f); err != nil {
				add(key, "%v", err)
			}
		}
	}
	if p.MaxOpenConns < 0 {
		add("maxOpenConns", "must not be negative")
	}
	if p.MaxIdleConns < 0 {
		add("maxIdleConns", "must not be negative")
	}
	if p.MaxOpenConns > 0 && p.MaxIdleConns > p.MaxOpenConns {
		add("maxIdleConns", "%d exceeds maxOpenConns %d", p.MaxIdleConns, p.MaxOpenConns)
	}
	if p.SecretName != "" && p.Password == "" {
		if _, err := p.resolvePassword(getenv); err != nil {
			errs = append(errs, err)
		}
	}
	slices.SortFunc(errs, func(a, b error) int { return strings.Compare(a.Error(), b.Error()) })
	return errs
}

// resolvePassword returns password, or reads secretName: a file path (a
// mounted secret) or else an environment variable of that name.
func (p Persistence) resolvePassword(getenv func(string) string) (string, error) {
	if p.Password != "" || p.SecretName == "" {
		return p.Password, nil
	}
	if b, err := os.ReadFile(p.SecretName); err == nil {
		return strings.TrimRight(string(b), "\r\n"), nil
	}
	if v := getenv(p.SecretName); v != "" {
		return v, nil
	}
	return "", fmt.Errorf("persistence.secretName: %q is neither a readable file nor a set environment variable holding the database password", p.SecretName)
}

func (t *TLSConfig) validate() []error { return t.validateAt("tls") }

// validateAt checks the block at key prefix (tls, healthTls, metrics.tls).
func (t *TLSConfig) validateAt(prefix string) []error {
	var errs []error
	add := func(key, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s.%s: %s", prefix, key, fmt.Sprintf(format, args...)))
	}
	if t.CertChainFile == "" {
		add("cert-chain-file", "required when tls is set")
	}
	if t.PrivateKeyFile == "" {
		add("private-key-file", "required when tls is set")
	}
	switch t.ClientAuth.Type {
	case "", "none", "optional":
	case "require":
		if t.TrustCollectionFile == "" {
			add("trust-collection-file", "required with client-auth.type require (the CAs of client certificates)")
		}
	default:
		add("client-auth.type", "must be none, optional or require, not %q", t.ClientAuth.Type)
	}
	switch t.MinimumServerProtocolVersion {
	case "", "TLSv1.2", "TLSv1.3", "1.2", "1.3":
	default:
		add("minimum-server-protocol-version", "must be TLSv1.2 or TLSv1.3, not %q", t.MinimumServerProtocolVersion)
	}
	if min, err := web.ParseTLSVersion(t.MinimumServerProtocolVersion); err == nil {
		if _, err := web.ParseCipherSuites(t.Ciphers, min); err != nil {
			add("ciphers", "%s", strings.TrimPrefix(err.Error(), "tls: "))
		}
	}
	if t.ClientAuth.AdminClient != nil && t.AdminClient != nil {
		add("admin-client", "set either tls.client-auth.admin-client or tls.admin-client, not both")
	}
	if a := t.adminClient(); a != nil && (a.CertChainFile == "" || a.PrivateKeyFile == "") {
		add("client-auth.admin-client", "cert-chain-file and private-key-file are both required")
	}
	return errs
}

// onboardingSecretLifetime is the sponsor secret's validity (mission 8).
const onboardingSecretLifetime = 48 * time.Hour

// checkOnboardingSecret refuses a secret older than 48 hours when it
// carries its issue time, in either of two formats:
//
//   - "<secret>@<RFC 3339 time>", e.g. "s3cr3t@2026-11-22T10:00:00Z";
//   - base64 (standard or URL) of a JSON object with "issued_at" (RFC 3339),
//     e.g. {"secret":"...","issued_at":"2026-11-22T10:00:00Z"}.
//
// A secret without an issue time is accepted: only the sponsor knows its
// age then.
func checkOnboardingSecret(s string, now time.Time) error {
	issued, ok, err := onboardingSecretIssued(s)
	if err != nil || !ok {
		return err
	}
	if issued.After(now.Add(5 * time.Minute)) {
		return fmt.Errorf("issued in the future (%s); check the clock", issued.Format(time.RFC3339))
	}
	if age := now.Sub(issued); age > onboardingSecretLifetime {
		return fmt.Errorf("expired: issued %s, %s ago, and a secret is valid 48 hours; ask the sponsor for a new one",
			issued.Format(time.RFC3339), age.Round(time.Minute))
	}
	return nil
}

func onboardingSecretIssued(s string) (time.Time, bool, error) {
	if i := strings.LastIndex(s, "@"); i > 0 {
		t, err := time.Parse(time.RFC3339, s[i+1:])
		if err != nil {
			return time.Time{}, false, fmt.Errorf("issue time after @ is not RFC 3339: %q", s[i+1:])
		}
		return t, true, nil
	}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding, base64.RawStdEncoding, base64.RawURLEncoding} {
		b, err := enc.DecodeString(s)
		if err != nil {
			continue
		}
		var v struct {
			IssuedAt *string `json:"issued_at"`
		}
		if json.Unmarshal(b, &v) != nil || v.IssuedAt == nil {
			return time.Time{}, false, nil
		}
		t, err := time.Parse(time.RFC3339, *v.IssuedAt)
		if err != nil {
			return time.Time{}, false, fmt.Errorf("issued_at is not RFC 3339: %q", *v.IssuedAt)
		}
		return t, true, nil
	}
	return time.Time{}, false, nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// DevNet reports whether the development network's features are on.
func (c Config) DevNet() bool { return c.Network == "devnet" }

// WalletEnabled reports enableWallet (default true).
func (c Config) WalletEnabled() bool { return c.EnableWallet == nil || *c.EnableWallet }

// DurableAsync reports ledgerApiDurableAsync (default false: it cost
// more than 10% of asynchronous throughput in make bench, issue 38).
func (c Config) DurableAsync() bool {
	return c.LedgerAPIDurableAsync != nil && *c.LedgerAPIDurableAsync
}

// HealthEnabled reports enableHealthProbes (default true).
func (c Config) HealthEnabled() bool { return c.EnableHealthProbes == nil || *c.EnableHealthProbes }

// MetricsEnabled reports metrics.enable (default true: compose deployments
// expose /metrics by default).
func (c Config) MetricsEnabled() bool { return c.Metrics.Enable == nil || *c.Metrics.Enable }

// NativeHistograms reports whether histograms are native (the default).
func (c Config) NativeHistograms() bool {
	return c.Metrics.NativeHistograms == nil || *c.Metrics.NativeHistograms
}

// networkNotes says which multi-validator settings are set and ignored by
// the embedded network, for the start-up log.
func (c Config) networkNotes() []string {
	var set []string
	if c.SvSponsorAddress != "" {
		set = append(set, "svSponsorAddress")
	}
	if c.ScanAddress != "" {
		set = append(set, "scanAddress")
	}
	if c.NonSvValidatorTrustSingleScan {
		set = append(set, "nonSvValidatorTrustSingleScan")
	}
	if c.UseSequencerConnectionsFromScan != nil {
		set = append(set, "useSequencerConnectionsFromScan")
	}
	if c.DecentralizedSynchronizerURL != "" {
		set = append(set, "decentralizedSynchronizerUrl")
	}
	if c.OnboardingSecret != "" {
		set = append(set, "onboardingSecret")
	}
	if c.Migration.ID != 0 || c.Migration.Migrating {
		set = append(set, "migration")
	}
	if c.Metrics.TopologyPollingInterval > 0 {
		set = append(set, envTopologyMetricsExport)
	}
	return set
}

// DatabaseURL is what store.Open takes: persistence.url, else a Postgres
// URL built from the parts, else the SQLite path. The SSL keys become the
// pgx URL parameters sslmode, sslrootcert, sslcert and sslkey.
func (c Config) DatabaseURL(getenv func(string) string) (string, error) {
	p := c.Persistence
	var u *url.URL
	switch {
	case p.URL != "" && !strings.HasPrefix(p.URL, "postgres://") && !strings.HasPrefix(p.URL, "postgresql://"):
		return p.URL, nil // SQLite
	case p.URL != "":
		var err error
		if u, err = url.Parse(p.URL); err != nil {
			return "", fmt.Errorf("persistence.url: %w", err)
		}
	case p.Host != "":
		port := p.Port
		if port == 0 {
			port = 5432
		}
		u = &url.URL{Scheme: "postgres", Host: fmt.Sprintf("%s:%d", p.Host, port), Path: "/" + p.DatabaseName}
		if p.User == "" {
			p.User = "cnadmin" // the chart's database user
		}
	case p.SQLitePath != "":
		return p.SQLitePath, nil
	default:
		return "", nil
	}
	pw, err := p.resolvePassword(getenv)
	if err != nil {
		return "", err
	}
	if p.User != "" || pw != "" {
		user := p.User
		if user == "" && u.User != nil {
			user = u.User.Username()
		}
		if pw != "" {
			u.User = url.UserPassword(user, pw)
		} else {
			u.User = url.User(user)
		}
	}
	q := u.Query()
	mode := p.SSLMode
	if mode == "" && p.SSL {
		mode = "verify-full" // the JDBC driver's ssl=true: chain and host name
	}
	set := func(k, v string) {
		if v != "" {
			q.Set(k, v)
		}
	}
	set("sslmode", mode)
	set("sslrootcert", p.SSLRootCert)
	set("sslcert", p.SSLCert)
	set("sslkey", p.SSLKey)
	set("search_path", p.Schema)
	u.RawQuery = q.Encode()
	return u.String(), nil
}

// masked returns c with secrets replaced and the defaults of unset
// switches filled in, for printing and logging.
func (c Config) masked() Config {
	const mask = "****"
	on := func(b bool) *bool { return &b }
	c.EnableWallet = on(c.WalletEnabled())
	c.LedgerAPIDurableAsync = on(c.DurableAsync())
	c.EnableHealthProbes = on(c.HealthEnabled())
	c.Metrics.Enable = on(c.MetricsEnabled())
	c.Metrics.NativeHistograms = on(c.NativeHistograms())
	c.Automation = c.Automation.effective()
	if c.Persistence.Password != "" {
		c.Persistence.Password = mask
	}
	if c.OnboardingSecret != "" {
		c.OnboardingSecret = mask
	}
	// The login's client secret and the cookie key are as secret as the
	// database's password.
	if c.OIDC.ClientSecret != "" {
		c.OIDC.ClientSecret = mask
	}
	if c.OIDC.SessionSecret != "" {
		c.OIDC.SessionSecret = mask
	}
	if u, err := url.Parse(c.Persistence.URL); err == nil && u.User != nil {
		if _, ok := u.User.Password(); ok {
			u.User = url.UserPassword(u.User.Username(), "MASKED")
			c.Persistence.URL = strings.Replace(u.String(), ":MASKED@", ":"+mask+"@", 1)
		}
	}
	return c
}

// printYAML writes the effective configuration with secrets masked.
func (c Config) printYAML(w io.Writer) error {
	enc := yaml.NewEncoder(w)
	enc.SetIndent(2)
	if err := enc.Encode(c.masked()); err != nil {
		return err
	}
	return enc.Close()
}
