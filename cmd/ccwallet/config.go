package main

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// Config is the operator's configuration: a values file in the shape of
// the deployment chart's (keys as in the mission's value-file tables), then
// environment variables, then flags, each overriding the one before.
type Config struct {
	ValidatorPartyHint   string      `yaml:"validatorPartyHint"`
	NodeIdentifier       string      `yaml:"nodeIdentifier"`
	ValidatorWalletUsers []string    `yaml:"validatorWalletUsers"`
	EnableWallet         *bool       `yaml:"enableWallet"`
	ContactPoint         string      `yaml:"contactPoint"`
	DisableAuth          bool        `yaml:"disableAuth"`
	Auth                 AuthConfig  `yaml:"auth"`
	Persistence          Persistence `yaml:"persistence"`
	// Network is "devnet" (faucet, time control, dev identity provider) or
	// "production".
	Network string `yaml:"network"`
	// Listen is the app port's address; HealthListen serves /readyz and
	// /livez (port 5003, as every Splice app).
	Listen       string `yaml:"listen"`
	HealthListen string `yaml:"healthListen"`
	// PublicURL is the address users open, printed at start.
	PublicURL string `yaml:"publicUrl"`
	LogFormat string `yaml:"logFormat"`
	LogLevel  string `yaml:"logLevel"`
	// Automation and ParticipantPruningSchedule configure the background
	// jobs; see automations.go.
	Automation                 AutomationConfig `yaml:"automation"`
	ParticipantPruningSchedule PruningConfig    `yaml:"participantPruningSchedule"`
}

// AuthConfig holds auth.audience, auth.jwksUrl and auth.issuer.
type AuthConfig struct {
	Audience string `yaml:"audience"`
	JWKSURL  string `yaml:"jwksUrl"`
	Issuer   string `yaml:"issuer"`
}

// Persistence is the database binding. URL wins; otherwise host, port,
// databaseName and schema build a Postgres URL; with neither, the embedded
// SQLite file is used.
type Persistence struct {
	URL          string `yaml:"url"`
	Host         string `yaml:"host"`
	Port         int    `yaml:"port"`
	DatabaseName string `yaml:"databaseName"`
	Schema       string `yaml:"schema"`
	User         string `yaml:"user"`
	Password     string `yaml:"password"`
	SecretName   string `yaml:"secretName"`
	SSLMode      string `yaml:"sslmode"`
	SQLitePath   string `yaml:"sqlitePath"`
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
		LogFormat:            "text",
		LogLevel:             "info",
		Auth:                 AuthConfig{Audience: DefaultAudience},
	}
}

// loadConfig reads the values file (if any), then the environment.
func loadConfig(path string, getenv func(string) string) (Config, error) {
	cfg := defaultConfig()
	if path != "" {
		b, err := os.ReadFile(path)
		if err != nil {
			return cfg, fmt.Errorf("read config: %w", err)
		}
		dec := yaml.NewDecoder(bytes.NewReader(b))
		dec.KnownFields(true)
		if err := dec.Decode(&cfg); err != nil && err.Error() != "EOF" {
			return cfg, fmt.Errorf("config %s: %w", path, err)
		}
	}
	if v := getenv("WALLET_DATABASE_URL"); v != "" {
		cfg.Persistence.URL = v
	}
	if v := getenv("WALLET_LISTEN"); v != "" {
		cfg.Listen = v
	}
	if v := getenv("WALLET_HEALTH_LISTEN"); v != "" {
		cfg.HealthListen = v
	}
	if v := getenv("WALLET_NETWORK"); v != "" {
		cfg.Network = v
	}
	if v := getenv("WALLET_PUBLIC_URL"); v != "" {
		cfg.PublicURL = v
	}
	if v := getenv("WALLET_LOG_FORMAT"); v != "" {
		cfg.LogFormat = v
	}
	if v := getenv("WALLET_DISABLE_AUTH"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return cfg, fmt.Errorf("WALLET_DISABLE_AUTH: %w", err)
		}
		cfg.DisableAuth = b
	}
	if err := cfg.validate(); err != nil {
		return cfg, err
	}
	_, err := cfg.automation() // refuse bad automation settings at start
	return cfg, err
}

func (c Config) validate() error {
	switch c.Network {
	case "devnet", "production":
	default:
		return fmt.Errorf("network: must be devnet or production, not %q", c.Network)
	}
	if len(c.ValidatorWalletUsers) == 0 {
		return fmt.Errorf("validatorWalletUsers: at least one wallet admin user is required")
	}
	if c.Network == "production" && c.Auth.JWKSURL == "" && !c.DisableAuth {
		return fmt.Errorf("auth.jwksUrl: required outside the development network")
	}
	return nil
}

// DevNet reports whether the development network's features are on.
func (c Config) DevNet() bool { return c.Network == "devnet" }

// WalletEnabled reports enableWallet (default true).
func (c Config) WalletEnabled() bool { return c.EnableWallet == nil || *c.EnableWallet }

// DatabaseURL is what store.Open takes.
func (c Config) DatabaseURL() string {
	p := c.Persistence
	switch {
	case p.URL != "":
		return p.URL
	case p.Host != "":
		port := p.Port
		if port == 0 {
			port = 5432
		}
		user := p.User
		if user == "" {
			user = "cnadmin"
		}
		cred := user
		if p.Password != "" {
			cred += ":" + p.Password
		}
		q := []string{}
		if p.SSLMode != "" {
			q = append(q, "sslmode="+p.SSLMode)
		}
		if p.Schema != "" {
			q = append(q, "search_path="+p.Schema)
		}
		u := fmt.Sprintf("postgres://%s@%s:%d/%s", cred, p.Host, port, p.DatabaseName)
		if len(q) > 0 {
			u += "?" + strings.Join(q, "&")
		}
		return u
	case p.SQLitePath != "":
		return p.SQLitePath
	}
	return ""
}
