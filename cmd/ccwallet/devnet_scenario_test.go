package main

import (
	"bytes"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ccwallet/ccwallet/ledger/delegations"
	"github.com/ccwallet/ccwallet/ledger/devnet"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/ccwallet/ccwallet/ledger/users"
)

// copyScenario copies docs/scenarios/name into a temporary directory, so
// the keys written beside it stay out of the repository.
func copyScenario(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "scenarios", name))
	if err != nil {
		t.Fatal(err)
	}
	return writeFile(t, name, string(b))
}

// TestDevnetSeedDumpCLI: `ccwallet devnet seed FILE` loads a scenario on
// either engine, writing the external party's key beside it (0600) and
// reusing it next time; a failing seed leaves no new key file behind;
// `devnet dump --out` writes a scenario that parses; production refuses
// both.
func TestDevnetSeedDumpCLI(t *testing.T) {
	for _, e := range ledgertest.Engines {
		t.Run(ledgertest.Name(e), func(t *testing.T) {
			db := []string{"--db", ledgertest.DBURL(t, e)}
			dev := func(args ...string) (string, error) {
				var out, errOut bytes.Buffer
				err := run(t.Context(), append(append([]string{"devnet"}, args...), db...), nil, &out, &errOut)
				return out.String(), err
			}
			file := copyScenario(t, "external-party.yaml")
			keyFile := filepath.Join(strings.TrimSuffix(file, ".yaml")+".keys", "treasury.key")
			out, err := dev("seed", file)
			if err != nil || !strings.Contains(out, "treasury\ttreasury::") || !strings.Contains(out, "key "+keyFile) {
				t.Fatalf("seed = %q, %v", out, err)
			}
			st, err := os.Stat(keyFile)
			if err != nil || st.Mode().Perm() != 0o600 {
				t.Fatalf("key file: %v, %v; want mode 0600", st, err)
			}
			key, err := readKey(keyFile)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(out, strings.TrimSpace(string(key.Seed()))) {
				t.Error("the key was printed")
			}
			// Again: the users exist, so nothing is created; the key stays.
			if _, err := dev("seed", file); err == nil || !strings.Contains(err.Error(), `users[0].name: a user "carol" is on the network already`) {
				t.Errorf("seed again = %v", err)
			}
			if _, err := os.Stat(keyFile); err != nil {
				t.Errorf("the existing key file after a failed seed: %v", err)
			}

			dump := filepath.Join(t.TempDir(), "dump.yaml")
			if out, err := dev("dump", "--out", dump); err != nil || !strings.Contains(out, "wrote 1 users, 1 parties, 0 offers and 1 instructions") {
				t.Fatalf("dump = %q, %v", out, err)
			}
			b, err := os.ReadFile(dump)
			if err != nil {
				t.Fatal(err)
			}
			sc, err := devnet.ParseScenario(b)
			if err != nil || len(sc.Parties) != 1 || !sc.Parties[0].External || sc.Parties[0].Balance != "5000.0000000000" {
				t.Errorf("dump = %+v, %v\n%s", sc, err, b)
			}
			if out, err := dev("dump"); err != nil || !strings.HasPrefix(out, "# ccwallet devnet dump") || !strings.Contains(out, "name: carol") {
				t.Errorf("dump to stdout = %q, %v", out, err)
			}

			// A failing seed of a new external party removes its new key.
			bad := writeFile(t, "bad.yaml", "parties:\n  - {name: ext2, external: true}\ninstructions:\n  - {from: ext2, to: nobody, amount: 1}\n")
			if _, err := dev("seed", bad); err == nil || !strings.Contains(err.Error(), "nothing of it was created") || !strings.Contains(err.Error(), "instructions[0].to") {
				t.Errorf("bad seed = %v", err)
			}
			if _, err := os.Stat(filepath.Join(strings.TrimSuffix(bad, ".yaml")+".keys", "ext2.key")); !os.IsNotExist(err) {
				t.Errorf("the new key after a failed seed: %v; want it removed", err)
			}
			for _, c := range []struct {
				args []string
				want string
			}{
				{[]string{"seed"}, "want one scenario file"},
				{[]string{"seed", filepath.Join(t.TempDir(), "none.yaml")}, "no such file"},
				{[]string{"dump", "x.yaml"}, "takes no file"},
			} {
				if _, err := dev(c.args...); err == nil || !strings.Contains(err.Error(), c.want) {
					t.Errorf("devnet %v = %v; want %q", c.args, err, c.want)
				}
			}
			prod := writeFile(t, "prod.yaml", "network: production\nauth:\n  jwksUrl: https://idp.example.com/.well-known/jwks.json\n")
			for _, sub := range [][]string{{"seed", file}, {"dump"}} {
				if _, err := dev(append(sub, "--config", prod)...); err == nil || !strings.Contains(err.Error(), "only available on a development network") {
					t.Errorf("devnet %v on production = %v, want a refusal", sub, err)
				}
			}
		})
	}
}

// TestServeSeed: serve --seed loads the scenario before serving, and a
// production configuration refuses the flag.
func TestServeSeed(t *testing.T) {
	file := copyScenario(t, "two-traders.yaml")
	s := startServe(t, append(sqliteArgs(t), "--seed", file), nil)
	var bal struct {
		Qty string `json:"effective_unlocked_qty"`
	}
	if code := call(t, plain, "GET", "http://"+s.addrs.App+"/v0/wallet/balance", devToken(t, "alice"), "", &bal); code != http.StatusOK || bal.Qty != "1000.0000000000" {
		t.Errorf("alice's balance = %d %+v; want 1000", code, bal)
	}
	prod := writeFile(t, "prod.yaml", prodValues)
	if _, err := tryServe(t, append(sqliteArgs(t), "--config", prod, "--seed", file), []string{prodSecret}); err == nil || !strings.Contains(err.Error(), "--seed: scenarios are only for a development network") {
		t.Errorf("serve --seed on production = %v", err)
	}
}

// TestDevnetSeedOnboardsAsServe: `devnet seed` opens the ledger with the
// server's ledger configuration (Config.ledgerConfig), so a user it
// onboards gets the merge delegation proposal onboarding makes
// (automation.mergeDelegationAtOnboarding, default on), as under serve.
func TestDevnetSeedOnboardsAsServe(t *testing.T) {
	url := ledgertest.DBURL(t, ledgertest.Engines[0])
	var out, errOut bytes.Buffer
	if err := run(t.Context(), []string{"devnet", "seed", copyScenario(t, "two-traders.yaml"), "--db", url}, nil, &out, &errOut); err != nil {
		t.Fatalf("seed: %v %s", err, errOut.String())
	}
	l := ledgertest.Open(t, url, ledgertest.Options{})
	bob, err := users.Of(l).PartyOf(t.Context(), "bob")
	if err != nil {
		t.Fatal(err)
	}
	ds, err := delegations.New(l).MergeDelegations(t.Context(), bob)
	if err != nil || len(ds) != 1 {
		t.Fatalf("bob's merge delegations after devnet seed = %+v, %v; want onboarding's proposal", ds, err)
	}
}
