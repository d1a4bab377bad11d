package main

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/golang-jwt/jwt/v5"
)

// localNetToken is a token as LocalNet's clients (the wallet SDK's
// localNetAuthDefault) make it: HS256 with the shared secret.
func localNetToken(t *testing.T, secret, user string) string {
	t.Helper()
	now := time.Now()
	s, err := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims{
		"sub": user, "aud": localNetAudience, "iss": "unsafe-auth", "iat": now.Unix(), "exp": now.Add(time.Hour).Unix(),
	}).SignedString([]byte(secret))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestLocalnetTwoValidators: serve --localnet runs two validators on one
// network: the app user's and the app provider's validator API name
// different operator parties of different participants, one DSO;
// LocalNet's ledger-api-user (an HS256 token with the published secret)
// is an admin on both Ledger APIs and acts as each one's operator; a
// user onboarded on the provider gets a party of the provider's
// participant and is that validator's user only; each validator runs
// its own automations, the network's run once; the scan port serves /api/scan and nothing else; a token
// signed with another secret is refused; the start warns, naming the
// secret.
func TestLocalnetTwoValidators(t *testing.T) {
	s := startServe(t, append(sqliteArgs(t), "--localnet", "--localnet-listen",
		"127.0.0.1:0,127.0.0.1:0,127.0.0.1:0,127.0.0.1:0,127.0.0.1:0"), nil)
	a := s.addrs
	if a.LocalNet.ProviderApp == "" || a.LocalNet.ProviderLedgerAPI == "" || a.LocalNet.Scan == "" {
		t.Fatalf("localnet addresses missing: %+v", a)
	}
	tok := localNetToken(t, localNetSecret, localNetUser)
	type validatorUser struct {
		PartyID string `json:"party_id"`
	}
	var user, provider validatorUser
	if code := call(t, plain, "GET", "http://"+a.App+"/v0/validator-user", tok, "", &user); code != 200 {
		t.Fatalf("app user's validator-user = %d", code)
	}
	if code := call(t, plain, "GET", "http://"+a.LocalNet.ProviderApp+"/v0/validator-user", tok, "", &provider); code != 200 {
		t.Fatalf("app provider's validator-user = %d", code)
	}
	up, pp := coin.PartyID(user.PartyID), coin.PartyID(provider.PartyID)
	if up != coin.PartyID(a.Operator) || pp != coin.PartyID(a.LocalNet.Provider) || up == pp || up.Namespace() == pp.Namespace() {
		t.Errorf("operators: app user %s, app provider %s (ready: %s, %s); want two parties of two participants", up, pp, a.Operator, a.LocalNet.Provider)
	}
	var dsoUser, dsoProvider struct {
		DSOPartyID string `json:"dso_party_id"`
	}
	call(t, plain, "GET", "http://"+a.App+"/v0/scan-proxy/dso-party-id", tok, "", &dsoUser)
	call(t, plain, "GET", "http://"+a.LocalNet.ProviderApp+"/v0/scan-proxy/dso-party-id", tok, "", &dsoProvider)
	if dsoUser.DSOPartyID == "" || dsoUser != dsoProvider {
		t.Errorf("DSO: app user %q, app provider %q; want one network's", dsoUser.DSOPartyID, dsoProvider.DSOPartyID)
	}
	type rights struct {
		Rights []struct {
			Kind map[string]struct {
				Value struct {
					Party string `json:"party"`
				} `json:"value"`
			} `json:"kind"`
		} `json:"rights"`
	}
	for lapi, op := range map[string]coin.PartyID{a.LedgerAPI: up, a.LocalNet.ProviderLedgerAPI: pp} {
		var rs rights
		if code := call(t, plain, "GET", "http://"+lapi+"/v2/users/"+localNetUser+"/rights", tok, "", &rs); code != 200 {
			t.Fatalf("%s: rights of %s = %d", lapi, localNetUser, code)
		}
		admin, acts := false, false
		for _, r := range rs.Rights {
			_, admin0 := r.Kind["ParticipantAdmin"]
			admin = admin || admin0
			if v, ok := r.Kind["CanActAs"]; ok && v.Value.Party == string(op) {
				acts = true
			}
		}
		if !admin || !acts {
			t.Errorf("%s: %s's rights %+v; want ParticipantAdmin and CanActAs %s", lapi, localNetUser, rs, op)
		}
	}
	// Both validators run their own automations, the network's run once.
	var js []struct{ Name string }
	if code := call(t, plain, "GET", "http://"+a.LocalNet.ProviderApp+"/v0/admin/jobs", tok, "", &js); code != 200 {
		t.Fatalf("GET /v0/admin/jobs = %d", code)
	}
	count := map[string]int{}
	for _, j := range js {
		count[j.Name]++
	}
	for _, name := range []string{"round-clock", "expire-transfers", "renew-preapprovals", "renew-preapprovals@" + localNetProviderHint,
		"collect-rewards", "collect-rewards@" + localNetProviderHint, "merge-holdings@" + localNetProviderHint} {
		if count[name] != 1 {
			t.Errorf("job %s runs %d times, want once (jobs: %v)", name, count[name], js)
		}
	}
	if count["round-clock@"+localNetProviderHint] != 0 || count["expire-transfers@"+localNetProviderHint] != 0 {
		t.Errorf("the network's jobs run for the app provider too: %v", js)
	}
	// A user onboarded on the app provider is its participant's.
	var onboarded struct {
		PartyID string `json:"party_id"`
	}
	if code := call(t, plain, "POST", "http://"+a.LocalNet.ProviderApp+"/v0/admin/users", tok, `{"name":"exchange"}`, &onboarded); code != 200 {
		t.Fatalf("onboard on the app provider = %d", code)
	}
	if ns := coin.PartyID(onboarded.PartyID).Namespace(); ns != pp.Namespace() {
		t.Errorf("a user onboarded on the app provider has party %s, want one of the provider's participant (%s)", onboarded.PartyID, pp.Namespace())
	}
	// Each validator has its own users: ledger-api-user is each one's
	// operator's, and the user onboarded on the app provider is listed
	// there only.
	for lapi, op := range map[string]coin.PartyID{a.LedgerAPI: up, a.LocalNet.ProviderLedgerAPI: pp} {
		var u struct {
			User struct {
				PrimaryParty coin.PartyID `json:"primaryParty"`
			} `json:"user"`
		}
		if code := call(t, plain, "GET", "http://"+lapi+"/v2/users/"+localNetUser, tok, "", &u); code != 200 || u.User.PrimaryParty != op {
			t.Errorf("%s: %s's primary party = %s (%d), want %s", lapi, localNetUser, u.User.PrimaryParty, code, op)
		}
	}
	listsExchange := func(lapi string) bool {
		var us struct {
			Users []struct {
				ID string `json:"id"`
			} `json:"users"`
		}
		if code := call(t, plain, "GET", "http://"+lapi+"/v2/users", tok, "", &us); code != 200 {
			t.Fatalf("%s: GET /v2/users = %d", lapi, code)
		}
		return strings.Contains(fmt.Sprint(us), "{exchange}")
	}
	if !listsExchange(a.LocalNet.ProviderLedgerAPI) || listsExchange(a.LedgerAPI) {
		t.Errorf("the user onboarded on the app provider: listed there %v, on the app user %v; want there only",
			listsExchange(a.LocalNet.ProviderLedgerAPI), listsExchange(a.LedgerAPI))
	}
	// A reset of the development network keeps both validators, and
	// ledger-api-user's rights on the provider.
	if code := call(t, plain, "POST", "http://"+a.App+"/v0/admin/devnet/reset", tok, "", nil); code != 200 {
		t.Fatalf("reset = %d", code)
	}
	var after validatorUser
	call(t, plain, "GET", "http://"+a.LocalNet.ProviderApp+"/v0/validator-user", tok, "", &after)
	if after != provider {
		t.Errorf("after a reset the app provider's operator is %s, want %s", after.PartyID, provider.PartyID)
	}
	var rs rights
	call(t, plain, "GET", "http://"+a.LocalNet.ProviderLedgerAPI+"/v2/users/"+localNetUser+"/rights", tok, "", &rs)
	if !strings.Contains(fmt.Sprint(rs), string(pp)) {
		t.Errorf("after a reset %s's rights on the provider are %+v, want CanActAs %s", localNetUser, rs, pp)
	}
	if code := call(t, plain, "POST", "http://"+a.LocalNet.ProviderApp+"/v0/admin/users", tok, `{"name":"exchange-2"}`, &onboarded); code != 200 {
		t.Errorf("onboard on the app provider after a reset = %d", code)
	}
	// The scan port.
	if code := call(t, plain, "GET", "http://"+a.LocalNet.Scan+"/api/scan/registry/metadata/v1/info", "", "", nil); code != 200 {
		t.Errorf("scan's registry info = %d, want 200", code)
	}
	if code := call(t, plain, "GET", "http://"+a.LocalNet.Scan+"/v0/validator-user", tok, "", nil); code != 404 {
		t.Errorf("the validator API on the scan port = %d, want 404", code)
	}
	if code := call(t, plain, "GET", "http://"+a.LocalNet.ProviderApp+"/v0/admin/users", localNetToken(t, "not-unsafe", localNetUser), "", nil); code != 401 {
		t.Errorf("a token with another secret = %d, want 401", code)
	}
	if logs := s.logs.String(); !strings.Contains(logs, `shared secret \"unsafe\"`) {
		t.Errorf("the start does not warn about the shared secret:\n%s", logs)
	}
}

// TestLocalnetRefusedInProduction: LocalNet's layout and authentication
// are a development network's: in production serve refuses to start
// and config check says why; on a development network config check
// warns, naming the shared secret.
func TestLocalnetRefusedInProduction(t *testing.T) {
	values := writeFile(t, "values.yaml", prodValues+"localNet: true\n")
	var out, errOut bytes.Buffer
	err := run(t.Context(), []string{"config", "check", "--config", values}, []string{prodSecret}, &out, &errOut)
	if err == nil || !strings.Contains(err.Error(), "localNet: LocalNet's layout and its test authentication") {
		t.Errorf("config check in production = %v, want a refusal naming localNet", err)
	}
	if _, err := tryServe(t, append(sqliteArgs(t), "--config", writeFile(t, "v.yaml", prodValues), "--localnet"), []string{prodSecret}); err == nil ||
		!strings.Contains(err.Error(), "only for a development network") {
		t.Errorf("serve --localnet in production = %v, want refused", err)
	}
	out.Reset()
	devValues := writeFile(t, "dev.yaml", "localNet: true\n")
	if err := run(t.Context(), []string{"config", "check", "--config", devValues}, nil, &out, &errOut); err != nil {
		t.Fatalf("config check on a development network: %v", err)
	}
	if !strings.Contains(out.String(), `warning: localNet: LocalNet's test authentication is on`) || !strings.Contains(out.String(), `"unsafe"`) {
		t.Errorf("config check does not warn about the shared secret:\n%s", out.String())
	}
}

// TestLocalnetDevnetToolsCoverBoth: the development network's faucet,
// time control and snapshots act on the one network from either
// validator's port: the app provider's operator taps on its own port;
// a time jump asked on the app provider's port opens the rounds of the
// network the app user sees; a snapshot taken on the app provider's port
// and restored on the app user's brings back both validators as they
// were (the app provider's user onboarded after it is gone, its
// operator and earlier users stay).
func TestLocalnetDevnetToolsCoverBoth(t *testing.T) {
	s := startServe(t, append(sqliteArgs(t), "--localnet", "--localnet-listen",
		"127.0.0.1:0,127.0.0.1:0,127.0.0.1:0,127.0.0.1:0,127.0.0.1:0"), nil)
	a := s.addrs
	tok := localNetToken(t, localNetSecret, localNetUser)
	user, provider := "http://"+a.App, "http://"+a.LocalNet.ProviderApp
	type balance struct {
		Round    int64  `json:"round"`
		Unlocked string `json:"effective_unlocked_qty"`
	}
	var before balance
	call(t, plain, "GET", provider+"/v0/wallet/balance", tok, "", &before)
	if code := call(t, plain, "POST", provider+"/v0/wallet/tap", tok, `{"amount":"100"}`, nil); code != 200 {
		t.Fatalf("tap on the app provider = %d", code)
	}
	var after balance
	call(t, plain, "GET", provider+"/v0/wallet/balance", tok, "", &after)
	if after.Unlocked == before.Unlocked {
		t.Errorf("the app provider's operator's balance after a tap of 100 on its port is %s, as before", after.Unlocked)
	}
	// Time control from the app provider's port moves the one network.
	var jump struct {
		From int64 `json:"from_round"`
		To   int64 `json:"to_round"`
	}
	if code := call(t, plain, "POST", provider+"/v0/admin/devnet/advance-rounds", tok, `{"rounds":3}`, &jump); code != 200 || jump.To != jump.From+3 {
		t.Fatalf("advance-rounds on the app provider = %d %+v", code, jump)
	}
	var seen balance
	call(t, plain, "GET", user+"/v0/wallet/balance", tok, "", &seen)
	if seen.Round != jump.To {
		t.Errorf("the app user's validator is at round %d after the app provider's jump to %d", seen.Round, jump.To)
	}
	// Snapshots.
	onboard := func(name string) {
		t.Helper()
		if code := call(t, plain, "POST", provider+"/v0/admin/users", tok, `{"name":"`+name+`"}`, nil); code != 200 {
			t.Fatalf("onboard %s on the app provider = %d", name, code)
		}
	}
	onboard("early")
	if code := call(t, plain, "POST", provider+"/v0/admin/devnet/snapshots", tok, `{"name":"both"}`, nil); code != 201 {
		t.Fatalf("snapshot on the app provider = %d", code)
	}
	onboard("late")
	if code := call(t, plain, "POST", user+"/v0/admin/devnet/snapshots/both/restore", tok, "", nil); code != 200 {
		t.Fatalf("restore on the app user = %d", code)
	}
	var us struct {
		Users []struct {
			ID string `json:"id"`
		} `json:"users"`
	}
	call(t, plain, "GET", "http://"+a.LocalNet.ProviderLedgerAPI+"/v2/users", tok, "", &us)
	if got := fmt.Sprint(us.Users); !strings.Contains(got, "{early}") || strings.Contains(got, "{late}") {
		t.Errorf("the app provider's users after the restore = %s, want early and not late", got)
	}
	var op struct {
		PartyID string `json:"party_id"`
	}
	call(t, plain, "GET", provider+"/v0/validator-user", tok, "", &op)
	if op.PartyID != a.LocalNet.Provider {
		t.Errorf("the app provider's operator after the restore = %s, want %s", op.PartyID, a.LocalNet.Provider)
	}
	var restored balance
	call(t, plain, "GET", provider+"/v0/wallet/balance", tok, "", &restored)
	if restored.Round != jump.To || restored.Unlocked == before.Unlocked {
		t.Errorf("the app provider's operator after the restore: round %d, balance %s; want round %d and the tap", restored.Round, restored.Unlocked, jump.To)
	}
}
