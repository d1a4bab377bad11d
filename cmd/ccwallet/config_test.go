package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/ccwallet/ccwallet/web"
	"github.com/google/go-cmp/cmp"
)

func TestMain(m *testing.M) { ledgertest.Main(m) }

const (
	alice = "alice-1::1220aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	bob   = "bob-1::1220bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
)

var testNow = time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)

func writeFile(t *testing.T, name, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// goodValues uses every key of the mission's value-file tables.
const goodValues = `
validatorWalletUsers: ["auth0|admin", "ops"]
auth:
  audience: https://ledger.example.com
  jwksUrl: https://idp.example.com/.well-known/jwks.json
  issuer: https://idp.example.com/
enableWallet: true
contactPoint: ops@example.com
migration:
  id: 3
  migrating: false
persistence:
  host: db.example.com
  port: 5432
  databaseName: participant_3
  schema: participant
  secretName: ` + "SECRET_ENV" + `
  sslmode: require
  maxOpenConns: 20
  maxIdleConns: 5
  connMaxLifetime: 30m
participantPruningSchedule:
  cron: 0 /10 * * * ?
  maxDuration: 5m
  retention: 30d
walletSweep:
  "` + alice + `":
    maxBalanceUSD: 100.5
    minBalanceUSD: 10
    receiver: "` + bob + `"
    useTransferPreapproval: true
autoAcceptTransfers:
  "` + bob + `":
    fromParties: ["` + alice + `"]
topup:
  enabled: true
  targetThroughput: 20000
  minTopupInterval: 1m
disableAuth: false
validatorPartyHint: acme-validator-1
nodeIdentifier: acme-validator-1
svSponsorAddress: https://sv.sv-1.example.com
scanAddress: https://scan.sv-1.example.com
nonSvValidatorTrustSingleScan: true
useSequencerConnectionsFromScan: false
decentralizedSynchronizerUrl: https://sequencer.sv-1.example.com
metrics:
  enable: true
enableHealthProbes: false
network: production
logFormat: json
`

func TestConfigFiles(t *testing.T) {
	tests := []struct {
		name string
		body string
		env  []string
		want string // "" means valid; else a substring of the error
	}{
		{"empty file", "", nil, ""},
		{"participant chart's targetAudience", "auth:\n  targetAudience: https://ledger.example.com\n", nil, ""},
		{"all mission keys", goodValues, []string{"SECRET_ENV=pw"}, ""},
		// The seed's storage keys, which the chart's values carry (before:
		// unknown keys).
		{"seed's db volume keys", "db:\n  volumeSize: 20Gi\n  volumeStorageClass: standard-rwo\n", nil, ""},
		{"bad db volume size", "db:\n  volumeSize: twenty gigs\n", nil, `db.volumeSize: "twenty gigs" is not a storage size`},
		{"unknown key", "enableWalet: true\n", nil, "enableWalet (line 1): unknown key"},
		{"unknown nested key", "auth:\n  jwks: x\n", nil, "auth.jwks (line 2): unknown key"},
		{"wrong type bool", "enableWallet: sometimes\n", nil, "enableWallet (line 1): wrong type"},
		{"wrong type list", "validatorWalletUsers: admin\n", nil, "validatorWalletUsers (line 1): wrong type"},
		{"wrong type int", "migration:\n  id: three\n", nil, "migration.id (line 2): wrong type"},
		{"bad party hint", "validatorPartyHint: acme\n", nil, `validatorPartyHint: "acme" is not of the form <organization>-<function>-<enumerator>`},
		{"hint without enumerator", "validatorPartyHint: acme-validator-x\n", nil, "validatorPartyHint:"},
		{"bad network", "network: testnet\n", nil, `network: must be devnet or production, not "testnet"`},
		{"production needs jwks", "network: production\n", nil, "auth.jwksUrl: required outside the development network"},
		{"bad jwks url", "auth:\n  jwksUrl: idp/jwks\n", nil, `auth.jwksUrl: "idp/jwks" is not an absolute http(s) URL`},
		{"bad cron", "participantPruningSchedule:\n  cron: 0 61 * * *\n  maxDuration: 5m\n  retention: 30d\n", nil,
			"participantPruningSchedule.cron: \"0 61 * * *\": end of range (61) above maximum (23)"},
		{"cron field count", "participantPruningSchedule:\n  cron: every hour\n  maxDuration: 5m\n  retention: 30d\n", nil,
			"participantPruningSchedule.cron: \"every hour\" has 2 fields"},
		{"pruning without retention", "participantPruningSchedule:\n  cron: '@daily'\n  maxDuration: 5m\n", nil,
			"participantPruningSchedule.retention: must be a positive duration"},
		{"bad duration", "topup:\n  minTopupInterval: soon\n", nil, `topup.minTopupInterval (line 2): bad duration "soon"`},
		{"sweep min above max", "walletSweep:\n  \"" + alice + "\":\n    maxBalanceUSD: 10\n    minBalanceUSD: 20\n    receiver: \"" + bob + "\"\n", nil,
			"walletSweep." + alice + ": minBalanceUSD 20 is greater than maxBalanceUSD 10"},
		{"sweep negative", "walletSweep:\n  \"" + alice + "\":\n    maxBalanceUSD: 10\n    minBalanceUSD: -1\n    receiver: \"" + bob + "\"\n", nil,
			"walletSweep." + alice + ".minBalanceUSD: must not be negative, got -1"},
		{"sweep bad sender", "walletSweep:\n  alice:\n    maxBalanceUSD: 10\n    minBalanceUSD: 1\n    receiver: \"" + bob + "\"\n", nil,
			"walletSweep.alice: sender: invalid party id"},
		{"sweep bad receiver", "walletSweep:\n  \"" + alice + "\":\n    maxBalanceUSD: 10\n    minBalanceUSD: 1\n    receiver: bob\n", nil,
			"walletSweep." + alice + `.receiver: "bob" is neither a party ID`},
		{"sweep to a name", "walletSweep:\n  \"" + alice + "\":\n    maxBalanceUSD: 10\n    minBalanceUSD: 1\n    receiver: bob.unverified.cns\n", nil, ""},
		{"sweep amount not a number", "walletSweep:\n  \"" + alice + "\":\n    maxBalanceUSD: lots\n    minBalanceUSD: 1\n    receiver: \"" + bob + "\"\n", nil,
			"walletSweep." + alice + ".maxBalanceUSD (line 3)"},
		{"sweep unknown key", "walletSweep:\n  \"" + alice + "\":\n    maxBalanceUSD: 10\n    minBalanceUSD: 1\n    receiver: \"" + bob + "\"\n    useTransferPreaproval: true\n", nil,
			"walletSweep." + alice + ".useTransferPreaproval (line 6): unknown key"},
		{"auto-accept bad sender", "autoAcceptTransfers:\n  \"" + bob + "\":\n    fromParties: [carol]\n", nil,
			"autoAcceptTransfers." + bob + `.fromParties[0]: "carol" is neither a party ID`},
		{"auto-accept bad receiver", "autoAcceptTransfers:\n  b@b:\n    fromParties: [\"" + alice + "\"]\n", nil,
			`autoAcceptTransfers.b@b: "b@b" is neither a party ID`},
		{"single scan needs scanAddress", "nonSvValidatorTrustSingleScan: true\n", nil,
			"scanAddress: required when nonSvValidatorTrustSingleScan is true"},
		{"single sequencer needs url", "useSequencerConnectionsFromScan: false\n", nil,
			"decentralizedSynchronizerUrl: required when useSequencerConnectionsFromScan is false"},
		{"bad sponsor url", "svSponsorAddress: sv-1\n", nil, `svSponsorAddress: "sv-1" is not an absolute http(s) URL`},
		{"bad sslmode", "persistence:\n  sslmode: maybe\n", nil, `persistence.sslmode: must be disable, prefer, require, verify-ca or verify-full, not "maybe"`},
		{"verify-ca needs root", "persistence:\n  sslmode: verify-ca\n", nil, "persistence.sslrootcert: required with sslmode verify-ca"},
		{"secret not found", "persistence:\n  host: db\n  databaseName: d\n  secretName: NO_SUCH_SECRET\n", nil,
			`persistence.secretName: "NO_SUCH_SECRET" is neither a readable file nor a set environment variable`},
		{"idle above open", "persistence:\n  maxOpenConns: 2\n  maxIdleConns: 5\n", nil, "persistence.maxIdleConns: 5 exceeds maxOpenConns 2"},
		{"tls require needs trust", "tls:\n  cert-chain-file: c.pem\n  private-key-file: k.pem\n  client-auth:\n    type: require\n", nil,
			"tls.trust-collection-file: required with client-auth.type require"},
		{"tls bad version", "tls:\n  cert-chain-file: c.pem\n  private-key-file: k.pem\n  minimum-server-protocol-version: TLSv1.0\n", nil,
			`tls.minimum-server-protocol-version: must be TLSv1.2 or TLSv1.3, not "TLSv1.0"`},
		{"negative throughput", "topup:\n  targetThroughput: -1\n", nil, "topup.targetThroughput: must not be negative"},
		{"negative write stall", "web:\n  writeStallTimeout: -5s\n", nil, `web.writeStallTimeout (line 2): bad duration "-5s": must not be negative`},
		{"negative user cache", "userCacheTtl: -1s\n", nil, `userCacheTtl (line 1): bad duration "-1s": must not be negative`},
		{"bad log format", "logFormat: xml\n", nil, `logFormat: must be text or json, not "xml"`},
		{"env MIGRATION_ID not a number", "", []string{"MIGRATION_ID=x"}, `MIGRATION_ID: want a whole number, not "x"`},
		{"env bad throughput", "", []string{"TARGET_TRAFFIC_THROUGHPUT=fast"}, "TARGET_TRAFFIC_THROUGHPUT: want bytes per second"},
		{"env bad interval", "", []string{"MIN_TRAFFIC_TOPUP_INTERVAL=1 minute"}, "MIN_TRAFFIC_TOPUP_INTERVAL: bad duration"},
		{"env bad sponsor", "", []string{"SPONSOR_SV_URL=sv"}, `svSponsorAddress: "sv" is not an absolute http(s) URL`},
		{"env histograms unknown value", "", []string{"ADDITIONAL_CONFIG_DISABLE_NATIVE_HISTOGRAMS=yes"},
			"ADDITIONAL_CONFIG_DISABLE_NATIVE_HISTOGRAMS: the only supported value is canton.monitoring.metrics.histograms=[]"},
		{"env topology bad", "", []string{"ADDITIONAL_CONFIG_TOPOLOGY_METRICS_EXPORT=5m"}, "ADDITIONAL_CONFIG_TOPOLOGY_METRICS_EXPORT: want"},
		{"onboarding secret expired", "", []string{"ONBOARDING_SECRET=s3cr3t@2026-11-21T11:00:00Z"},
			"onboardingSecret (ONBOARDING_SECRET): expired: issued 2026-11-21T11:00:00Z"},
		{"onboarding secret fresh", "", []string{"ONBOARDING_SECRET=s3cr3t@2026-11-22T13:00:00Z"}, ""},
		{"onboarding secret without time", "", []string{"ONBOARDING_SECRET=s3cr3t"}, ""},
		{"onboarding secret json expired", "", []string{"ONBOARDING_SECRET=eyJzZWNyZXQiOiJ4IiwiaXNzdWVkX2F0IjoiMjAyNi0xMS0yMFQwMDowMDowMFoifQ=="},
			"onboardingSecret (ONBOARDING_SECRET): expired: issued 2026-11-20T00:00:00Z"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeFile(t, "values.yaml", tt.body)
			_, err := loadConfig(path, newEnv(tt.env), testNow)
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("want valid, got: %v", err)
			case tt.want != "" && err == nil:
				t.Fatalf("want error containing %q, got none", tt.want)
			case tt.want != "" && !strings.Contains(err.Error(), tt.want):
				t.Fatalf("error\n%v\ndoes not contain\n%s", err, tt.want)
			}
		})
	}
}

func TestConfigGoodValues(t *testing.T) {
	cfg, err := loadConfig(writeFile(t, "values.yaml", goodValues), newEnv([]string{"SECRET_ENV=p@ss word"}), testNow)
	if err != nil {
		t.Fatal(err)
	}
	got := struct {
		Users                  []string
		Sweep                  string
		Receiver               string
		AutoFrom               []string
		Retention, MaxDuration time.Duration
		Health, Wallet         bool
		URL                    string
		Notes                  []string
	}{
		cfg.ValidatorWalletUsers, cfg.WalletSweep[alice].MaxBalanceUSD.String(), cfg.WalletSweep[alice].Receiver,
		cfg.AutoAcceptTransfers[bob].FromParties, cfg.ParticipantPruningSchedule.Retention.Std(),
		cfg.ParticipantPruningSchedule.MaxDuration.Std(), cfg.HealthEnabled(), cfg.WalletEnabled(), "", cfg.networkNotes(),
	}
	got.URL, err = cfg.DatabaseURL(newEnv([]string{"SECRET_ENV=p@ss word"}).get)
	if err != nil {
		t.Fatal(err)
	}
	want := struct {
		Users                  []string
		Sweep                  string
		Receiver               string
		AutoFrom               []string
		Retention, MaxDuration time.Duration
		Health, Wallet         bool
		URL                    string
		Notes                  []string
	}{
		[]string{"auth0|admin", "ops"}, "100.5000000000", bob, []string{alice}, 30 * 24 * time.Hour, 5 * time.Minute, false, true,
		"postgres://cnadmin:p%40ss%20word@db.example.com:5432/participant_3?search_path=participant&sslmode=require",
		[]string{"svSponsorAddress", "scanAddress", "nonSvValidatorTrustSingleScan", "useSequencerConnectionsFromScan",
			"decentralizedSynchronizerUrl", "migration"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("config mismatch (-want +got):\n%s", diff)
	}
}

func TestConfigPrecedence(t *testing.T) {
	path := writeFile(t, "values.yaml", "migration:\n  id: 1\ntopup:\n  targetThroughput: 100\n  minTopupInterval: 5m\nlisten: ':1'\n")
	env := newEnv([]string{
		"MIGRATION_ID=2", "TARGET_TRAFFIC_THROUGHPUT=200", "MIN_TRAFFIC_TOPUP_INTERVAL=10m", "WALLET_LISTEN=:2",
		"TRUSTED_SCAN_URL=https://scan.example.com", "SPONSOR_SV_URL=https://sv.example.com",
		"ADDITIONAL_CONFIG_DISABLE_NATIVE_HISTOGRAMS= canton.monitoring.metrics.histograms = [] ",
		"ADDITIONAL_CONFIG_TOPOLOGY_METRICS_EXPORT=canton.validator-apps.validator_backend.automation.topology-metrics-polling-interval = 5m",
		"ADDITIONAL_CONFIG_SOMETHING_ELSE=x",
	})
	c := commonFlags{config: path, network: "production"}
	cfg, err := c.read(env)
	if err != nil {
		t.Fatal(err)
	}
	got := []any{cfg.Migration.ID, cfg.Topup.TargetThroughput, cfg.Topup.MinTopupInterval.Std(), cfg.Listen, cfg.Network,
		cfg.ScanAddress, cfg.SvSponsorAddress, cfg.NativeHistograms(), cfg.Metrics.TopologyPollingInterval.Std(), cfg.Ignored}
	want := []any{int64(2), int64(200), 10 * time.Minute, ":2", "production", "https://scan.example.com", "https://sv.example.com",
		false, 5 * time.Minute, []string{"ADDITIONAL_CONFIG_SOMETHING_ELSE"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("precedence mismatch (-want +got):\n%s", diff)
	}
}

func TestDatabaseURLSSL(t *testing.T) {
	secret := writeFile(t, "db-password", "from-file\n")
	tests := []struct {
		name string
		p    Persistence
		want string
	}{
		{"ssl true is verify-full", Persistence{Host: "h", DatabaseName: "d", User: "u", SSL: true, SSLRootCert: "/ca.pem"},
			"postgres://u@h:5432/d?sslmode=verify-full&sslrootcert=%2Fca.pem"},
		{"verify-ca with client cert", Persistence{Host: "h", Port: 6432, DatabaseName: "d", SecretName: secret, SSLMode: "verify-ca",
			SSLRootCert: "/ca.pem", SSLCert: "/c.pem", SSLKey: "/k.pem"},
			"postgres://cnadmin:from-file@h:6432/d?sslcert=%2Fc.pem&sslkey=%2Fk.pem&sslmode=verify-ca&sslrootcert=%2Fca.pem"},
		{"url gets ssl params", Persistence{URL: "postgres://x:y@h/d?application_name=w", SSLMode: "verify-ca", SSLRootCert: "/ca.pem"},
			"postgres://x:y@h/d?application_name=w&sslmode=verify-ca&sslrootcert=%2Fca.pem"},
		{"sqlite path untouched", Persistence{URL: "data/w.db"}, "data/w.db"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Config{Persistence: tt.p}.DatabaseURL(func(string) string { return "" })
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestConfigCheckAndPrint(t *testing.T) {
	good := writeFile(t, "good.yaml", "validatorPartyHint: acme-validator-1\nscanAddress: https://scan.example.com\n"+
		"persistence:\n  url: postgres://cnadmin:hunter2@db:5432/participant_0\n")
	bad := writeFile(t, "bad.yaml", "validatorPartyHint: acme\nnetwork: mainnet\n")
	secrets := writeFile(t, "secrets.yaml", "validatorPartyHint: acme-validator-1\n"+
		"persistence:\n  url: postgres://cnadmin:hunter2@db:5432/participant_0\n"+
		"oidc:\n  clientSecret: clientsecret1\n  sessionSecret: sessionsecret-0123456789abcdefghijklmnop\n")
	tests := []struct {
		name       string
		args       []string
		env        []string
		wantErr    []string
		wantOut    []string
		notWantOut []string
	}{
		{"check good", []string{"config", "check", "--config", good}, nil, nil,
			[]string{"configuration OK", "note: scanAddress is accepted but ignored by the embedded network"}, nil},
		{"check bad lists every key", []string{"config", "check", "--config", bad}, nil,
			[]string{"invalid configuration:", "validatorPartyHint:", "network: must be devnet or production"}, nil, nil},
		{"flag fixes env", []string{"config", "check", "--config", good, "--network", "devnet"}, []string{"WALLET_NETWORK=mainnet"}, nil,
			[]string{"configuration OK"}, nil},
		{"print masks secrets", []string{"config", "print", "--config", secrets}, []string{"ONBOARDING_SECRET=topsecret", "WALLET_DATABASE_PASSWORD=pw2"}, nil,
			[]string{"validatorPartyHint: acme-validator-1", "url: postgres://cnadmin:****@db:5432/participant_0", "onboardingSecret: '****'", "password: '****'",
				"clientSecret: '****'", "sessionSecret: '****'",
				"enableWallet: true", "nativeHistograms: true", "roundInterval: 10m0s", "rewardCollectionInterval: 3m20s", "pollInterval: 30s"},
			[]string{"hunter2", "topsecret", "pw2", "clientsecret1", "sessionsecret-0123456789"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			err := run(t.Context(), tt.args, tt.env, &out, &errOut)
			if len(tt.wantErr) == 0 && err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			if len(tt.wantErr) > 0 && err == nil {
				t.Fatal("want an error (exit 1), got none")
			}
			for _, w := range tt.wantErr {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
			for _, w := range tt.wantOut {
				if !strings.Contains(out.String(), w) {
					t.Errorf("output does not contain %q:\n%s", w, out.String())
				}
			}
			for _, w := range tt.notWantOut {
				if strings.Contains(out.String(), w) {
					t.Errorf("output leaks %q:\n%s", w, out.String())
				}
			}
		})
	}
}

// TestWebClientLimitsFromValues: the listeners' slow-client limits come
// from the web block, the write-stall timeout included (issue 38: it was
// fixed at 30 s), and default as documented.
func TestWebClientLimitsFromValues(t *testing.T) {
	cfg, err := loadConfig(writeFile(t, "values.yaml", "web:\n  writeStallTimeout: 5s\n  bodyReadTimeout: 7s\n"), newEnv(nil), testNow)
	if err != nil {
		t.Fatal(err)
	}
	if l := cfg.Web.clientLimits(); l.WriteStallTimeout != 5*time.Second || l.BodyReadTimeout != 7*time.Second {
		t.Errorf("limits %+v, want writeStallTimeout 5s, bodyReadTimeout 7s", l)
	}
	def, err := loadConfig(writeFile(t, "values.yaml", ""), newEnv(nil), testNow)
	if err != nil {
		t.Fatal(err)
	}
	if l := def.Web.clientLimits(); l.WriteStallTimeout != web.DefaultWriteStallTimeout {
		t.Errorf("default write stall %s, want %s", l.WriteStallTimeout, web.DefaultWriteStallTimeout)
	}
}
