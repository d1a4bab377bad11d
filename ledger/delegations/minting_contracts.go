package delegations

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/store"
	"github.com/uptrace/bun"
)

// A minting delegation's payload and its reads (the templates are the
// core's, which the Ledger API's reads know): the wallet's lists, the
// prepared proposal's executor, and reward collection, which leaves the
// external parties without one alone (UndelegatedExternalParties).

// mintingDelegationPayload is the payload of both templates: the
// beneficiary lets the delegate mint its rewards and merge its holdings
// down to mergeLimit until expiresAt.
type mintingDelegationPayload struct {
	DSO         coin.PartyID `json:"dso"`
	Beneficiary coin.PartyID `json:"beneficiary"`
	Delegate    coin.PartyID `json:"delegate"`
	ExpiresAt   string       `json:"expiresAt"`
	MergeLimit  string       `json:"amuletMergeLimit"`
}

// MintingDelegation is a proposal or an active delegation as the wallet
// shows it.
type MintingDelegation struct {
	Contract    ledger.Contract
	Beneficiary coin.PartyID
	Delegate    coin.PartyID
	ExpiresAt   time.Time
	MergeLimit  int
}

// MintingDelegationPayload is the payload of an active MintingDelegation
// of d's beneficiary to its delegate.
func MintingDelegationPayload(dso coin.PartyID, d MintingDelegation) any {
	return mintingDelegationPayload{
		DSO: dso, Beneficiary: d.Beneficiary, Delegate: d.Delegate, ExpiresAt: ledger.FormatTime(d.ExpiresAt), MergeLimit: fmt.Sprint(d.MergeLimit),
	}
}

// MintingDelegationView is the minting delegation (or proposal) c.
func MintingDelegationView(l *ledger.Ledger, c *store.Contract) (MintingDelegation, error) {
	var p mintingDelegationPayload
	if err := json.Unmarshal([]byte(c.Payload), &p); err != nil {
		return MintingDelegation{}, fmt.Errorf("decode %s: %w", c.ContractID, err)
	}
	exp, _ := time.Parse(time.RFC3339Nano, p.ExpiresAt)
	var limit int
	_, _ = fmt.Sscan(p.MergeLimit, &limit)
	return MintingDelegation{Contract: l.ContractView(c), Beneficiary: p.Beneficiary, Delegate: p.Delegate, ExpiresAt: exp, MergeLimit: limit}, nil
}

// MintingDelegationsIn lists, read through db, the active contracts of
// template (a minting delegation or its proposal) party is a stakeholder
// of (any party when empty) that keep accepts.
func MintingDelegationsIn(ctx context.Context, l *ledger.Ledger, db bun.IDB, template string, party coin.PartyID, keep func(MintingDelegation) bool) ([]MintingDelegation, error) {
	cs, err := store.ActiveContractsByTemplate(ctx, db, template, party)
	if err != nil {
		return nil, err
	}
	out := []MintingDelegation{}
	for i := range cs {
		d, err := MintingDelegationView(l, &cs[i])
		if err != nil {
			return nil, err
		}
		if keep(d) {
			out = append(out, d)
		}
	}
	return out, nil
}

// UndelegatedExternalParties lists, read through db, the external parties
// without an active, unexpired minting delegation to l's validator:
// minting their coupons needs their own signature, so reward collection
// (ledger/rewards, devnet's time jumps) leaves them alone.
func UndelegatedExternalParties(ctx context.Context, l *ledger.Ledger, db bun.IDB) ([]coin.PartyID, error) {
	ext, err := store.PartyIDsOfKind(ctx, db, ledger.PartyKindExternal)
	if err != nil || len(ext) == 0 {
		return nil, err
	}
	now := l.Now()
	ds, err := MintingDelegationsIn(ctx, l, db, TemplateMintingDelegation, "", func(d MintingDelegation) bool {
		return d.Delegate == l.Operator() && d.ExpiresAt.After(now)
	})
	if err != nil {
		return nil, err
	}
	delegated := map[coin.PartyID]bool{}
	for _, d := range ds {
		delegated[d.Beneficiary] = true
	}
	var held []coin.PartyID
	for _, p := range ext {
		if !delegated[p] {
			held = append(held, p)
		}
	}
	return held, nil
}
