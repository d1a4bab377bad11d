package devnet

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/apiread"
	"github.com/ccwallet/ccwallet/ledger/bounds"
	"github.com/ccwallet/ccwallet/ledger/delegations"
	"github.com/ccwallet/ccwallet/ledger/fault"
	"github.com/ccwallet/ccwallet/ledger/featured"
	"github.com/ccwallet/ccwallet/ledger/holdingsview"
	"github.com/ccwallet/ccwallet/ledger/provider"
	"github.com/ccwallet/ccwallet/ledger/users"
	"github.com/ccwallet/ccwallet/store"
)

// Dump writes the network's state as a scenario that Seed loads on
// another development network: the users (but the operator's own) and
// the other local and external parties, each with its available
// holdings (as a balance when it has one), its live preapproval, its
// active merge or minting delegation and its featured app right, then
// the open offers and pending instructions with their tracking ids and
// expiries. What instructions lock is not in the balances: seeding an
// instruction mints what it locks. Not dumped, because a scenario cannot
// make them: the history, reward coupons, traffic, accepted offers,
// allocations and what they lock, and the operator's own holdings. External parties' keys are not on the node:
// seeding the dump gives them new keys (and so new party IDs).
//
// The reads are not one transaction: dump a network nobody is changing.
func (s *Service) Dump(ctx context.Context) (*Scenario, error) {
	l := s.l
	if _, err := l.Dev(); err != nil {
		return nil, err
	}
	operator := l.Operator()
	sc := &Scenario{}
	names := map[coin.PartyID]string{}
	all, err := users.Of(l).All(ctx)
	if err != nil {
		return nil, err
	}
	var dumped []coin.PartyID
	for _, u := range all {
		names[u.Party] = u.Name
		if u.Party == operator {
			continue
		}
		sc.Users = append(sc.Users, ScenarioParty{Name: u.Name})
		dumped = append(dumped, u.Party)
	}
	var after coin.PartyID
	for {
		ps, err := store.PartiesAfter(ctx, l.DB(), after, apiread.MaxPartiesPage)
		if err != nil {
			return nil, err
		}
		for _, p := range ps {
			if _, user := names[p.PartyID]; user || p.PartyID == operator || (p.Kind != "local" && p.Kind != ledger.PartyKindExternal) {
				continue
			}
			names[p.PartyID] = p.Hint
			sc.Parties = append(sc.Parties, ScenarioParty{Name: p.Hint, External: p.Kind == ledger.PartyKindExternal})
			dumped = append(dumped, p.PartyID)
		}
		if len(ps) < apiread.MaxPartiesPage {
			break
		}
		after = ps[len(ps)-1].PartyID
	}
	if len(sc.Users) > MaxScenarioItems || len(sc.Parties) > MaxScenarioItems {
		return nil, fmt.Errorf("%w: the network has %d users and %d parties; a scenario holds at most %d of each", fault.ErrConflict, len(sc.Users), len(sc.Parties), MaxScenarioItems)
	}
	minting, err := s.dg.MintingDelegations(ctx, operator)
	if err != nil {
		return nil, err
	}
	for i, party := range dumped {
		var p *ScenarioParty
		if i < len(sc.Users) {
			p = &sc.Users[i]
		} else {
			p = &sc.Parties[i-len(sc.Users)]
		}
		if err := dumpParty(ctx, l, s.dg, s.feat, p, party, minting); err != nil {
			return nil, fmt.Errorf("dump %s: %w", party, err)
		}
	}
	nameOf := func(p coin.PartyID) string {
		if n, ok := names[p]; ok {
			return n
		}
		return string(p)
	}
	offers, err := store.TransferOffersDue(ctx, l.DB(), ledger.OfferCreated, bounds.MaxTime, MaxScenarioItems+1)
	if err != nil {
		return nil, err
	}
	instructions, err := store.TransferInstructionsDue(ctx, l.DB(), string(ledger.InstructionPending), bounds.MaxTime, MaxScenarioItems+1)
	if err != nil {
		return nil, err
	}
	if len(offers) > MaxScenarioItems || len(instructions) > MaxScenarioItems {
		return nil, fmt.Errorf("%w: the network has more than %d open offers or pending instructions, more than a scenario holds", fault.ErrConflict, MaxScenarioItems)
	}
	for _, o := range offers {
		sc.Offers = append(sc.Offers, ScenarioTransfer{From: nameOf(o.Sender), To: nameOf(o.Receiver), Amount: o.Amount.String(),
			Description: o.Description, ExpiresAt: ledger.FormatTime(o.ExpiresAt), TrackingID: o.TrackingID})
	}
	for _, o := range instructions {
		sc.Instructions = append(sc.Instructions, ScenarioTransfer{From: nameOf(o.Sender), To: nameOf(o.Receiver), Amount: o.Amount.String(),
			Description: o.Description, ExpiresAt: ledger.FormatTime(o.ExecuteBefore), TrackingID: o.TrackingID})
	}
	for _, list := range [][]ScenarioTransfer{sc.Offers, sc.Instructions} {
		slices.SortStableFunc(list, func(a, b ScenarioTransfer) int {
			return cmp.Or(cmp.Compare(a.From, b.From), cmp.Compare(a.To, b.To), cmp.Compare(a.TrackingID, b.TrackingID))
		})
	}
	return sc, nil
}

// dumpParty fills in what party holds: its available holdings, largest
// first, its preapproval, delegations and featured right.
func dumpParty(ctx context.Context, l *ledger.Ledger, dg *delegations.Service, feat *featured.Service, p *ScenarioParty, party coin.PartyID, minting []delegations.MintingDelegation) error {
	hs, _, err := holdingsview.New(l).List(ctx, party)
	if err != nil {
		return err
	}
	for _, h := range hs {
		if !h.Locked && h.Effective.IsPositive() {
			p.Holdings = append(p.Holdings, h.Effective.String())
		}
	}
	if len(p.Holdings) == 1 {
		p.Balance, p.Holdings = p.Holdings[0], nil
	}
	if _, err := provider.New(l).Preapproval(ctx, party); err == nil {
		p.Preapproval = true
	} else if !errors.Is(err, fault.ErrNotFound) {
		return err
	}
	if !p.External {
		ms, err := dg.MergeDelegations(ctx, party)
		if err != nil {
			return err
		}
		p.MergeDelegation = slices.ContainsFunc(ms, func(m delegations.MergeDelegation) bool { return m.Status == delegations.MergeActive })
	}
	for _, m := range minting {
		if m.Beneficiary == party && m.ExpiresAt.After(l.Now()) {
			p.MintingDelegation = &ScenarioMintingDelegation{MergeLimit: m.MergeLimit, ExpiresAt: ledger.FormatTime(m.ExpiresAt)}
		}
	}
	p.Featured, err = feat.IsFeatured(ctx, party)
	return err
}
