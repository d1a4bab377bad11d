package api_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/airdrop"
	"github.com/ccwallet/ccwallet/ledger/delegations"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/ccwallet/ccwallet/ledger/users"
)

// TestAirdropEndpoint: POST /v0/admin/merge-delegations/airdrop is the
// provider's: users get 403; a delegating recipient is paid exactly and
// merged; a recipient without a merge delegation, a bad amount, a party
// that is no party and an oversized list are refused with a message and
// change nothing.
func TestAirdropEndpoint(t *testing.T) {
	l := ledgertest.New(t, ledgertest.Engines[0])
	ctx := context.Background()
	alice, err := users.Of(l).Onboard(ctx, "alice", "")
	if err != nil {
		t.Fatal(err)
	}
	bob, err := users.Of(l).Onboard(ctx, "bob", "")
	if err != nil {
		t.Fatal(err)
	}
	ledgertest.Mint(t, l, l.Operator(), "1000")
	as := make([]coin.Amount, 12)
	for i := range as {
		as[i] = coin.MustParse("1")
	}
	if err := ledgertest.Dev(t, l).MintBulk(ctx, alice, as); err != nil {
		t.Fatal(err)
	}
	prop, err := delegations.New(l).ProposeMergeDelegation(ctx, alice)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := delegations.New(l).AcceptMergeDelegation(ctx, prop.Contract.ContractID); err != nil {
		t.Fatal(err)
	}
	for _, p := range []coin.PartyID{alice, bob} {
		if _, _, err := l.Preapprovals().Create(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	a := newJobsAPI(t, l, nil)
	body := func(shares ...string) string {
		return `{"description":"launch","recipients":[` + strings.Join(shares, ",") + `]}`
	}
	share := func(p coin.PartyID, amount string) string {
		return fmt.Sprintf(`{"party_id":%q,"amount":%q}`, p, amount)
	}
	const path = "/v0/admin/merge-delegations/airdrop"
	var e struct {
		Error string `json:"error"`
	}
	if code := a.do("alice", "POST", path, body(share(alice, "1")), nil); code != http.StatusForbidden {
		t.Errorf("a user's airdrop = %d, want 403", code)
	}
	refused := []struct {
		body string
		code int
		msg  string
	}{
		{body(share(alice, "1"), share(bob, "1")), http.StatusConflict, "no active merge delegation"},
		{body(share(alice, "1.00000000001")), http.StatusBadRequest, "recipients[0].amount"},
		{body(share("nobody", "1")), http.StatusBadRequest, "recipients[0].party_id"},
		{body(strings.Repeat(share(alice, "1")+",", airdrop.MaxRecipients) + share(alice, "1")), http.StatusBadRequest, "at most 100"},
		{body(), http.StatusBadRequest, "at least one recipient"},
		{`{"recipients":`, http.StatusBadRequest, ""},
	}
	for _, r := range refused {
		e.Error = ""
		if code := a.do("admin", "POST", path, r.body, &e); code != r.code || !strings.Contains(e.Error, r.msg) {
			t.Errorf("%.80s = %d %q, want %d %q", r.body, code, e.Error, r.code, r.msg)
		}
	}
	if b, _ := l.Balance(ctx, alice); !b.EffectiveUnlocked.Equal(coin.MustParse("12")) || b.Count != 12 {
		t.Fatalf("refused airdrops changed alice: %+v", b)
	}
	var res struct {
		UpdateID     string `json:"update_id"`
		Recipients   int    `json:"recipients"`
		Total        string `json:"total"`
		Merges       int    `json:"merges"`
		MergedInputs int    `json:"merged_inputs"`
	}
	if code := a.do("admin", "POST", path, body(share(alice, "5000")), &e); code != http.StatusBadRequest || !strings.Contains(e.Error, "cannot pay") {
		t.Errorf("airdrop beyond the operator's means = %d %q, want 400", code, e.Error)
	}
	drop := `{"command_id":"drop-1",` + body(share(alice, "2.5000000001"))[1:]
	if code := a.do("admin", "POST", path, drop, &res); code != http.StatusOK ||
		res.Total != "2.5000000001" || res.Recipients != 1 || res.Merges != 1 || res.MergedInputs != 4 || res.UpdateID == "" {
		t.Fatalf("airdrop = %d %+v", code, res)
	}
	first := res
	if code := a.do("admin", "POST", path, drop, &res); code != http.StatusOK || res != first {
		t.Errorf("retried airdrop = %d %+v, want the first answer %+v", code, res, first)
	}
	if b, _ := l.Balance(ctx, alice); !b.EffectiveUnlocked.Equal(coin.MustParse("14.5000000001")) || b.Count != ledger.MergeTarget {
		t.Errorf("alice after the airdrop: %s in %d holdings, want 14.5000000001 in %d", b.EffectiveUnlocked, b.Count, ledger.MergeTarget)
	}
}
