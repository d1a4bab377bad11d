package deploy

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

const exampleValues = "examples/validator-values.yaml" // relative to deploy/helm

// render runs helm template on the chart and returns its documents.
func render(t *testing.T, args ...string) []map[string]any {
	t.Helper()
	out, err := helm(t, append([]string{"template", "wallet", "ccwallet"}, args...)...)
	if err != nil {
		t.Fatalf("helm template %v: %v\n%s", args, err, out)
	}
	var docs []map[string]any
	dec := yaml.NewDecoder(strings.NewReader(out))
	for {
		var d map[string]any
		if err := dec.Decode(&d); errors.Is(err, io.EOF) {
			return docs
		} else if err != nil {
			t.Fatalf("helm template output: %v", err)
		}
		if d != nil {
			docs = append(docs, d)
		}
	}
}

func find(docs []map[string]any, kind string) map[string]any {
	for _, d := range docs {
		if d["kind"] == kind {
			return d
		}
	}
	return nil
}

// dig walks maps and lists: dig(x, "spec", "template", 0, ...).
func dig(x any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, _ := x.(map[string]any)
			x = m[k]
		case int:
			l, _ := x.([]any)
			if k >= len(l) {
				return nil
			}
			x = l[k]
		}
	}
	return x
}

func list(x any) []map[string]any {
	var out []map[string]any
	l, _ := x.([]any)
	for _, e := range l {
		m, _ := e.(map[string]any)
		out = append(out, m)
	}
	return out
}

// pod is what the Deployment's container receives: args, the environment
// and the files mounted into it, materialised under root (mount paths are
// rewritten from / to root/, in the values file and the args alike).
type pod struct {
	args []string
	env  []string
	root string
}

// podOf rebuilds the container's view from the rendered ConfigMap and
// Deployment. Secrets are not part of the chart: each Secret key the pod
// mounts or reads gets a stand-in value (real PEM for TLS files, which the
// wallet loads).
func podOf(t *testing.T, docs []map[string]any) pod {
	t.Helper()
	cm, dep := find(docs, "ConfigMap"), find(docs, "Deployment")
	if cm == nil || dep == nil {
		t.Fatal("the chart rendered no ConfigMap or no Deployment")
	}
	spec := dig(dep, "spec", "template", "spec")
	ctr := dig(spec, "containers", 0)
	volumes := map[string]map[string]any{}
	for _, v := range list(dig(spec, "volumes")) {
		volumes[v["name"].(string)] = v
	}
	p := pod{root: t.TempDir()}
	mounts := list(dig(ctr, "volumeMounts"))
	var pairs []string
	slices.SortFunc(mounts, func(a, b map[string]any) int { return len(b["mountPath"].(string)) - len(a["mountPath"].(string)) })
	for _, m := range mounts {
		mp := m["mountPath"].(string)
		pairs = append(pairs, mp, filepath.Join(p.root, mp))
	}
	rewrite := strings.NewReplacer(pairs...)
	cert, key := selfSigned(t)
	write := func(path string, b []byte) {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for _, m := range mounts {
		dst := filepath.Join(p.root, m["mountPath"].(string))
		v := volumes[m["name"].(string)]
		switch {
		case v == nil:
			t.Fatalf("volumeMount %v names no volume", m["name"])
		case v["configMap"] != nil:
			sub, _ := m["subPath"].(string)
			body, ok := dig(cm, "data", sub).(string)
			if !ok {
				t.Fatalf("mount %v: the ConfigMap has no key %q", m["name"], sub)
			}
			write(dst, []byte(rewrite.Replace(body)))
		case v["secret"] != nil:
			items := list(dig(v, "secret", "items"))
			if len(items) == 0 { // a whole TLS Secret
				write(filepath.Join(dst, "tls.crt"), cert)
				write(filepath.Join(dst, "tls.key"), key)
				write(filepath.Join(dst, "ca.crt"), cert)
			}
			for _, it := range items {
				write(filepath.Join(dst, it["path"].(string)), []byte("stand-in-"+it["key"].(string)+"\n"))
			}
		case v["emptyDir"] != nil:
			if err := os.MkdirAll(dst, 0o755); err != nil {
				t.Fatal(err)
			}
		default:
			t.Fatalf("volume %v: a kind this test does not know", m["name"])
		}
	}
	for _, e := range list(dig(ctr, "env")) {
		name := e["name"].(string)
		if v, ok := e["value"].(string); ok {
			p.env = append(p.env, name+"="+v)
			continue
		}
		ref, _ := dig(e, "valueFrom", "secretKeyRef", "key").(string)
		if ref == "" {
			t.Fatalf("env %s: neither a value nor a secretKeyRef", name)
		}
		p.env = append(p.env, name+"=stand-in-secret-"+ref+"-0123456789abcdefghijklmnop")
	}
	for _, a := range dig(ctr, "args").([]any) {
		p.args = append(p.args, rewrite.Replace(a.(string)))
	}
	return p
}

// check runs `ccwallet config check` with the pod's flags and environment.
func (p pod) check(t *testing.T) (string, bool) {
	t.Helper()
	if len(p.args) == 0 || p.args[0] != "serve" {
		t.Fatalf("container args %v: want serve and its flags", p.args)
	}
	return configCheck(t, p.env, p.args[1:]...)
}

func TestChartLint(t *testing.T) {
	t.Parallel()
	if out, err := helm(t, "lint", "--strict", "ccwallet", "-f", exampleValues); err != nil {
		t.Fatalf("helm lint: %v\n%s", err, out)
	}
	// Without the required keys the chart says which one is missing (helm
	// lint passes over fail, so template is asked).
	out, err := helm(t, "template", "wallet", "ccwallet")
	if err == nil || !strings.Contains(out, "validatorPartyHint is required") {
		t.Fatalf("helm template without values: %v\n%s", err, out)
	}
}

// TestChartExampleConfigCheck renders the seed's example values and runs
// `ccwallet config check` on exactly what the pod receives.
func TestChartExampleConfigCheck(t *testing.T) {
	t.Parallel()
	docs := render(t, "-f", exampleValues)
	p := podOf(t, docs)
	if out, ok := p.check(t); !ok {
		t.Fatalf("the pod's configuration is refused:\n%s", out)
	}
	dep := find(docs, "Deployment")
	if r := dig(dep, "spec", "replicas"); r != 2 {
		t.Errorf("replicas %v, want the example's 2", r)
	}
	ctr := dig(dep, "spec", "template", "spec", "containers", 0)
	ports := map[string]int{}
	for _, pt := range list(dig(ctr, "ports")) {
		ports[pt["name"].(string)] = pt["containerPort"].(int)
	}
	if ports["http"] != 8080 || ports["health"] != 5003 || ports["metrics"] != 10013 || ports["ledger-api"] != 7575 {
		t.Errorf("container ports %v", ports)
	}
	for _, probe := range []string{"livenessProbe", "readinessProbe", "startupProbe"} {
		if dig(ctr, probe, "httpGet", "port") != "health" {
			t.Errorf("%s not on the health port: %v", probe, dig(ctr, probe))
		}
	}
	sm := find(docs, "ServiceMonitor")
	if sm == nil || dig(sm, "spec", "endpoints", 0, "port") != "metrics" || dig(sm, "spec", "endpoints", 0, "path") != "/metrics" {
		t.Fatalf("metrics.enable: true: ServiceMonitor %v", sm)
	}
	if dig(sm, "metadata", "labels", "release") != "prometheus" {
		t.Errorf("metrics.labels not on the ServiceMonitor: %v", dig(sm, "metadata", "labels"))
	}
	svcPorts := map[any]any{}
	for _, pt := range list(dig(find(docs, "Service"), "spec", "ports")) {
		svcPorts[pt["name"]] = pt["port"]
	}
	if svcPorts["metrics"] != 10013 || svcPorts["ledger-api"] != 7575 {
		t.Errorf("the Service's ports are %v, want metrics 10013 and ledger-api 7575", svcPorts)
	}
	var env []string
	for _, e := range p.env {
		env = append(env, strings.SplitN(e, "=", 2)[0])
	}
	for _, want := range []string{"WALLET_OIDC_CLIENT_SECRET", "WALLET_SESSION_SECRET", "ONBOARDING_SECRET"} {
		if !slices.Contains(env, want) {
			t.Errorf("env %v lacks %s", env, want)
		}
	}
	values, _ := dig(find(docs, "ConfigMap"), "data", "values.yaml").(string)
	for _, secret := range []string{"stand-in", "password:"} {
		if strings.Contains(values, secret) {
			t.Errorf("the ConfigMap holds a secret (%q):\n%s", secret, values)
		}
	}
}

// TestChartSwitches: enableHealthProbes: false removes the probes and
// metrics.enable: false the ServiceMonitor; the pod still passes.
func TestChartSwitches(t *testing.T) {
	t.Parallel()
	docs := render(t, "-f", exampleValues, "--set", "enableHealthProbes=false,metrics.enable=false,ledgerApi.enable=false")
	ctr := dig(find(docs, "Deployment"), "spec", "template", "spec", "containers", 0)
	for _, probe := range []string{"livenessProbe", "readinessProbe", "startupProbe"} {
		if dig(ctr, probe) != nil {
			t.Errorf("enableHealthProbes: false still renders %s", probe)
		}
	}
	if find(docs, "ServiceMonitor") != nil {
		t.Error("metrics.enable: false still renders a ServiceMonitor")
	}
	for _, pt := range append(list(dig(ctr, "ports")), list(dig(find(docs, "Service"), "spec", "ports"))...) {
		if pt["name"] == "ledger-api" {
			t.Errorf("ledgerApi.enable: false still exposes %v", pt)
		}
	}
	if values, _ := dig(find(docs, "ConfigMap"), "data", "values.yaml").(string); !strings.Contains(values, `ledgerApiListen: ""`) {
		t.Errorf("ledgerApi.enable: false leaves the listener on:\n%s", values)
	}
	if out, ok := podOf(t, docs).check(t); !ok {
		t.Fatalf("refused:\n%s", out)
	}
}

// TestChartTLSOnEveryListener: healthTls and metrics.tls mount their
// Secrets, give the wallet the files (config check loads them), switch the
// probes to HTTPS and make the ServiceMonitor scrape over https.
func TestChartTLSOnEveryListener(t *testing.T) {
	t.Parallel()
	docs := render(t, "-f", exampleValues, "--set", "healthTls.secretName=ccwallet-health-tls,metrics.tls.secretName=ccwallet-metrics-tls")
	if out, ok := podOf(t, docs).check(t); !ok {
		t.Fatalf("refused:\n%s", out)
	}
	values, _ := dig(find(docs, "ConfigMap"), "data", "values.yaml").(string)
	for _, want := range []string{"healthTls:", "/etc/ccwallet/health-tls/tls.crt", "/etc/ccwallet/metrics-tls/tls.key"} {
		if !strings.Contains(values, want) {
			t.Errorf("the wallet's values lack %q:\n%s", want, values)
		}
	}
	ctr := dig(find(docs, "Deployment"), "spec", "template", "spec", "containers", 0)
	for _, probe := range []string{"livenessProbe", "readinessProbe", "startupProbe"} {
		if dig(ctr, probe, "httpGet", "scheme") != "HTTPS" {
			t.Errorf("%s is not HTTPS: %v", probe, dig(ctr, probe))
		}
	}
	if dig(find(docs, "ServiceMonitor"), "spec", "endpoints", 0, "scheme") != "https" {
		t.Errorf("the ServiceMonitor does not scrape over https: %v", dig(find(docs, "ServiceMonitor"), "spec", "endpoints", 0))
	}
}

// TestChartDevnetSQLite: the smallest install, on the embedded SQLite
// file; two replicas on it are refused at render time.
func TestChartDevnetSQLite(t *testing.T) {
	t.Parallel()
	set := "network=devnet,validatorPartyHint=demo-validator-1,validatorWalletUsers={admin}"
	if out, ok := podOf(t, render(t, "--set", set)).check(t); !ok {
		t.Fatalf("refused:\n%s", out)
	}
	out, err := helm(t, "template", "wallet", "ccwallet", "--set", set+",replicaCount=2")
	if err == nil || !strings.Contains(out, "replicaCount > 1 needs Postgres") {
		t.Fatalf("two replicas on SQLite: %v\n%s", err, out)
	}
}

// TestChartBadValuesRefused: a value the wallet refuses is caught by the
// same check (so the check above can fail).
func TestChartBadValuesRefused(t *testing.T) {
	t.Parallel()
	docs := render(t, "-f", exampleValues, "--set", "participantPruningSchedule.retention=0s,tls.minimumServerProtocolVersion=TLSv1.0")
	out, ok := podOf(t, docs).check(t)
	if ok || !strings.Contains(out, "participantPruningSchedule.retention") || !strings.Contains(out, "minimum-server-protocol-version") {
		t.Fatalf("bad values accepted or not named:\n%s", out)
	}
}

// TestChartSeedKeysReachTheWallet: each of the seed's keys, set in the
// chart's values, is what the wallet's effective configuration says
// (ccwallet config print in the pod's place).
func TestChartSeedKeysReachTheWallet(t *testing.T) {
	t.Parallel()
	docs := render(t, "-f", exampleValues, "--set",
		"useSequencerConnectionsFromScan=false,decentralizedSynchronizerUrl=https://sequencer.sv-1.global.example,enableWallet=false,migration.migrating=true,"+
			"db.volumeSize=20Gi,db.volumeStorageClass=standard-rwo")
	p := podOf(t, docs)
	cmd := exec.Command(wallet, append([]string{"config", "print"}, p.args[1:]...)...)
	cmd.Env = p.env
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("config print: %v\n%s", err, out)
	}
	var eff map[string]any
	if err := yaml.Unmarshal(out, &eff); err != nil {
		t.Fatal(err)
	}
	sender := "acme-validator-1::1220" + strings.Repeat("a", 64)
	receiver := "acme-treasury-1::1220" + strings.Repeat("a", 64)
	for _, c := range []struct {
		path []any
		want any
	}{
		{[]any{"validatorPartyHint"}, "acme-validator-1"},
		{[]any{"nodeIdentifier"}, "acme-validator-1"},
		{[]any{"validatorWalletUsers", 0}, "auth0|6543210abcdef"},
		{[]any{"contactPoint"}, "ops@acme.example"},
		{[]any{"enableWallet"}, false},
		{[]any{"auth", "audience"}, "https://ledger_api.acme.example"},
		{[]any{"auth", "jwksUrl"}, "https://acme.eu.auth0.com/.well-known/jwks.json"},
		{[]any{"persistence", "host"}, "postgres.acme-validator.svc.cluster.local"},
		{[]any{"persistence", "port"}, 5432},
		{[]any{"persistence", "databaseName"}, "participant_3"},
		{[]any{"persistence", "schema"}, "participant"},
		{[]any{"persistence", "user"}, "cnadmin"},
		{[]any{"persistence", "sslmode"}, "verify-ca"},
		{[]any{"db", "volumeSize"}, "20Gi"},
		{[]any{"db", "volumeStorageClass"}, "standard-rwo"},
		{[]any{"migration", "id"}, 3},
		{[]any{"migration", "migrating"}, true},
		{[]any{"svSponsorAddress"}, "https://sv.sv-1.global.example"},
		{[]any{"scanAddress"}, "https://scan.sv-1.global.example"},
		{[]any{"useSequencerConnectionsFromScan"}, false},
		{[]any{"decentralizedSynchronizerUrl"}, "https://sequencer.sv-1.global.example"},
		{[]any{"onboardingSecret"}, "****"},
		{[]any{"participantPruningSchedule", "cron"}, "0 /10 * * * ?"},
		{[]any{"participantPruningSchedule", "retention"}, "720h0m0s"},
		{[]any{"walletSweep", sender, "maxBalanceUSD"}, 1000000},
		{[]any{"walletSweep", sender, "minBalanceUSD"}, 2000.25},
		{[]any{"walletSweep", sender, "receiver"}, receiver},
		{[]any{"walletSweep", sender, "useTransferPreapproval"}, true},
		{[]any{"autoAcceptTransfers", receiver, "fromParties", 0}, sender},
		{[]any{"topup", "targetThroughput"}, 20000},
		{[]any{"topup", "minTopupInterval"}, "1m0s"},
		{[]any{"metrics", "enable"}, true},
		{[]any{"metrics", "listen"}, ":10013"},
		{[]any{"enableHealthProbes"}, true},
		{[]any{"healthListen"}, ":5003"},
		{[]any{"listen"}, ":8080"},
		{[]any{"ledgerApiListen"}, ":7575"},
		{[]any{"oidc", "issuer"}, "https://acme.eu.auth0.com/"},
		{[]any{"tls", "client-auth", "type"}, "optional"},
	} {
		if got := dig(eff, c.path...); got != c.want {
			t.Errorf("%v: the wallet has %v (%T), want %v", c.path, got, got, c.want)
		}
	}
}

// TestChartMigratesOnPostgres: the pod's database binding (host, port,
// databaseName, schema, user cnadmin, the password from the mounted
// Secret) reaches a real Postgres; TLS to the database is left out, the
// test cluster has none.
func TestChartMigratesOnPostgres(t *testing.T) {
	pg := startPostgres(t, "participant_3")
	if _, err := pg.db.ExecContext(t.Context(), "CREATE SCHEMA participant"); err != nil {
		t.Fatal(err)
	}
	host, port, _ := strings.Cut(pg.hostPort, ":")
	docs := render(t, "-f", exampleValues, "--set", "persistence.sslmode=,persistence.sslSecretName=,persistence.host="+host+",persistence.port="+port)
	p := podOf(t, docs)
	// The Secret's stand-in value is the password the cluster wants.
	if err := os.WriteFile(filepath.Join(p.root, "etc/ccwallet/secrets/db/password"), []byte(pg.password+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	pg.migrate(t, p, "participant")
}

// TestChartClaimsDBVolume: without Postgres, the seed's db.volumeSize and
// db.volumeStorageClass claim the SQLite file's volume, which the pod
// mounts instead of an emptyDir.
func TestChartClaimsDBVolume(t *testing.T) {
	t.Parallel()
	docs := render(t, "--set", "network=devnet,validatorPartyHint=acme-validator-1,validatorWalletUsers[0]=admin,db.volumeSize=5Gi,db.volumeStorageClass=fast")
	pvc := find(docs, "PersistentVolumeClaim")
	if pvc == nil {
		t.Fatal("no PersistentVolumeClaim rendered")
	}
	if got := dig(pvc, "spec", "resources", "requests", "storage"); got != "5Gi" {
		t.Errorf("claim's storage = %v, want 5Gi", got)
	}
	if got := dig(pvc, "spec", "storageClassName"); got != "fast" {
		t.Errorf("claim's storage class = %v, want fast", got)
	}
	for _, v := range dig(find(docs, "Deployment"), "spec", "template", "spec", "volumes").([]any) {
		if vol := v.(map[string]any); vol["name"] == "data" && dig(vol, "persistentVolumeClaim", "claimName") != dig(pvc, "metadata", "name") {
			t.Errorf("the data volume is %v, want the claim", vol)
		}
	}
}
