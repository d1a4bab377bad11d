package main

import (
	"bytes"
	"context"
	"crypto"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/handlers"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/delegations"
	"github.com/ccwallet/ccwallet/ledger/external"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/ccwallet/ccwallet/ledger/provider"
	"github.com/ccwallet/ccwallet/store"
	"github.com/ccwallet/ccwallet/web"
)

func runCLI(t *testing.T, env map[string]string, args ...string) string {
	t.Helper()
	var out, errb bytes.Buffer
	if err := run(context.Background(), args, environ(env), &out, &errb); err != nil {
		t.Fatalf("ccwallet %s: %v (stderr %s)", strings.Join(args, " "), err, errb.String())
	}
	return out.String()
}

func TestExternalKeygenAndSign(t *testing.T) {
	path := filepath.Join(t.TempDir(), "key.json")
	out := runCLI(t, nil, "external", "keygen", "--out", path)
	var kf keyFile
	b, _ := os.ReadFile(path)
	if err := json.Unmarshal(b, &kf); err != nil || !strings.Contains(out, kf.PublicKey) {
		t.Fatalf("key file %s (%v), output %q", b, err, out)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Errorf("key file mode %v, want 0600", st.Mode().Perm())
	}
	pub, _ := hex.DecodeString(kf.PublicKey)
	for _, n := range []int{32, 34} {
		msg := make([]byte, n)
		_, _ = rand.Read(msg)
		sig := strings.TrimSpace(runCLI(t, nil, "external", "sign", "--key", path, "--hash", hex.EncodeToString(msg)))
		if err := external.VerifySignature("sig", pub, msg, sig); err != nil {
			t.Errorf("%d-byte hash: %v", n, err)
		}
	}
	if out := runCLI(t, nil, "external", "keygen"); !strings.Contains(out, "private_key ") {
		t.Errorf("keygen without --out = %q", out)
	}
	if err := run(context.Background(), []string{"external", "keygen", "--out", path}, os.Environ(), &bytes.Buffer{}, &bytes.Buffer{}); err == nil {
		t.Error("keygen overwrote an existing key file")
	}
}

func TestExternalOnboardAndTransfer(t *testing.T) {
	l := ledgertest.New(t, store.SQLite)
	_, signer, _ := ed25519.GenerateKey(rand.Reader)
	v, err := web.NewVerifier(web.AuthConfig{Audience: "aud", Issuer: "test", StaticKeys: map[string]crypto.PublicKey{"k1": signer.Public()}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(handlers.New(l, handlers.Config{Auth: v}, nil).Routes(nil))
	defer srv.Close()
	tok, _ := web.SignDevToken(signer, "k1", "test", "aud", "admin", time.Hour)
	env := map[string]string{"CCWALLET_TOKEN": tok}

	path := filepath.Join(t.TempDir(), "key.json")
	runCLI(t, env, "external", "keygen", "--out", path)
	party := strings.TrimSpace(runCLI(t, env, "external", "onboard", "--server", srv.URL, "--hint", "cli-ext", "--key", path))
	if !strings.HasPrefix(party, "cli-ext::1220") {
		t.Fatalf("onboard printed %q", party)
	}
	ledgertest.Mint(t, l, coin.PartyID(party), "50")
	for i := 0; i < 3; i++ {
		out := runCLI(t, env, "external", "transfer", "--server", srv.URL, "--key", path, "--party", party, "--to", string(l.Operator()), "--amount", "1.25")
		if !strings.Contains(out, "update_id ") {
			t.Fatalf("transfer printed %q", out)
		}
	}
	out := runCLI(t, env, "external", "propose-delegation", "--server", srv.URL, "--key", path, "--party", party, "--merge-limit", "5")
	if !strings.Contains(out, "contract_id ") {
		t.Fatalf("propose-delegation printed %q", out)
	}
	ps, err := delegations.New(l).MintingDelegationProposals(context.Background(), l.Operator())
	if err != nil || len(ps) != 1 || string(ps[0].Beneficiary) != party {
		t.Errorf("proposals = %+v, %v", ps, err)
	}
	b, err := external.New(l).ExternalPartyBalance(context.Background(), coin.PartyID(party))
	if err != nil || b.Unlocked.Cmp(coin.MustParse("46.25")) > 0 {
		t.Errorf("balance after three transfers of 1.25 = %+v, %v", b, err)
	}
	var errb bytes.Buffer
	err = run(context.Background(), []string{"external", "transfer", "--server", srv.URL, "--key", path, "--party", party, "--to", string(l.Operator()), "--amount", "1000"}, environ(env), &bytes.Buffer{}, &errb)
	if err == nil || !strings.Contains(err.Error(), "400") {
		t.Errorf("overspending = %v, want a 400 from the server", err)
	}
}

// TestExternalPreapprovalCLI runs the whole flow with the CLI against a
// router: onboard two parties, fund the sender with the devnet tap, give the
// receiver a preapproval, three sends, balances.
func TestExternalPreapprovalCLI(t *testing.T) {
	l := ledgertest.New(t, store.SQLite)
	_, signer, _ := ed25519.GenerateKey(rand.Reader)
	v, err := web.NewVerifier(web.AuthConfig{Audience: "aud", Issuer: "test", StaticKeys: map[string]crypto.PublicKey{"k1": signer.Public()}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(handlers.New(l, handlers.Config{Auth: v}, nil).Routes(nil))
	defer srv.Close()
	tok, _ := web.SignDevToken(signer, "k1", "test", "aud", "admin", time.Hour)
	env := map[string]string{"CCWALLET_TOKEN": tok}
	dir := t.TempDir()
	onboard := func(hint string) (string, string) {
		path := filepath.Join(dir, hint+".json")
		runCLI(t, env, "external", "keygen", "--out", path)
		return strings.TrimSpace(runCLI(t, env, "external", "onboard", "--server", srv.URL, "--hint", hint, "--key", path)), path
	}
	recv, recvKey := onboard("cli-recv")
	sender, senderKey := onboard("cli-send")
	if out := runCLI(t, env, "external", "tap", "--server", srv.URL, "--party", sender, "--amount", "100"); !strings.Contains(out, "contract_id ") {
		t.Fatalf("tap printed %q", out)
	}
	out := runCLI(t, env, "external", "setup-preapproval", "--server", srv.URL, "--key", recvKey, "--party", recv)
	if !strings.Contains(out, "transfer_preapproval_contract_id ") {
		t.Fatalf("setup-preapproval printed %q", out)
	}
	if _, err := provider.New(l).Preapproval(context.Background(), coin.PartyID(recv)); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		out := runCLI(t, env, "external", "send", "--server", srv.URL, "--key", senderKey, "--party", sender, "--to", recv, "--amount", "2.5")
		if !strings.Contains(out, "update_id ") {
			t.Fatalf("send printed %q", out)
		}
	}
	b, err := external.New(l).ExternalPartyBalance(context.Background(), coin.PartyID(recv))
	if err != nil || !b.Total().Equal(coin.MustParse("7.5")) {
		t.Errorf("receiver after three sends of 2.5 = %+v, %v", b, err)
	}
	if c, err := external.New(l).TransferCommandCounter(context.Background(), coin.PartyID(sender)); err != nil || c.NextNonce != 3 {
		t.Errorf("counter = %+v, %v", c, err)
	}
	// A second setup is refused: the preapproval exists.
	err = run(context.Background(), []string{"external", "setup-preapproval", "--server", srv.URL, "--key", recvKey, "--party", recv}, environ(env), &bytes.Buffer{}, &bytes.Buffer{})
	if err == nil || !strings.Contains(err.Error(), "409") {
		t.Errorf("second setup-preapproval = %v, want a 409", err)
	}
}

func TestPreparedTTLConfig(t *testing.T) {
	path := filepath.Join(t.TempDir(), "values.yaml")
	if err := os.WriteFile(path, []byte("externalPartyPreparedTtl: 90s\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := loadConfig(path, envVars{}, time.Now())
	if err != nil || cfg.ExternalPartyPreparedTTL != 90*time.Second {
		t.Errorf("externalPartyPreparedTtl = %v, %v; want 1m30s", cfg.ExternalPartyPreparedTTL, err)
	}
}

// TestUserCacheTTLConfig: userCacheTtl reaches the ledger; left out, the
// ledger's default (Canton's 5 s) applies.
func TestUserCacheTTLConfig(t *testing.T) {
	path := filepath.Join(t.TempDir(), "values.yaml")
	if err := os.WriteFile(path, []byte("userCacheTtl: 250ms\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := loadConfig(path, envVars{}, time.Now())
	if err != nil || cfg.ledgerConfig().UserCacheTTL != 250*time.Millisecond {
		t.Errorf("userCacheTtl 250ms: the ledger's UserCacheTTL = %v, %v", cfg.ledgerConfig().UserCacheTTL, err)
	}
	if err := os.WriteFile(path, []byte("network: devnet\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if cfg, err = loadConfig(path, envVars{}, time.Now()); err != nil || cfg.ledgerConfig().UserCacheTTL != 0 {
		t.Errorf("no userCacheTtl: the ledger's UserCacheTTL = %v, %v; want 0 (the ledger's default)", cfg.ledgerConfig().UserCacheTTL, err)
	}
	if ledger.DefaultUserCacheTTL != 5*time.Second {
		t.Errorf("DefaultUserCacheTTL = %v; Canton's user management cache keeps an entry 5s", ledger.DefaultUserCacheTTL)
	}
}

// environ turns a map into the KEY=VALUE list run takes.
func environ(env map[string]string) []string {
	var out []string
	for k, v := range env {
		out = append(out, k+"="+v)
	}
	return out
}
