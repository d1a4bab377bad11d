package devnet

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/delegations"
	"github.com/ccwallet/ccwallet/ledger/external"
	"github.com/ccwallet/ccwallet/ledger/fault"
	"github.com/ccwallet/ccwallet/ledger/featured"
	"github.com/ccwallet/ccwallet/ledger/users"
)

// SeedResult is what Seed created: each name's party, and the private
// keys of the external parties (given or generated), which the caller
// writes out and never logs.
type SeedResult struct {
	Parties map[string]coin.PartyID
	Keys    map[string]ed25519.PrivateKey
}

// NewScenarioKeys returns keys with a fresh Ed25519 key added for each
// external party of sc that has none, so a caller can write the keys out
// before seeding (and remove the new ones if the seed fails).
func NewScenarioKeys(sc *Scenario, keys map[string]ed25519.PrivateKey) (map[string]ed25519.PrivateKey, error) {
	out := make(map[string]ed25519.PrivateKey, len(keys))
	for _, p := range sc.Parties {
		if !p.External {
			continue
		}
		if k, ok := keys[p.Name]; ok {
			out[p.Name] = k
			continue
		}
		_, k, err := ed25519.GenerateKey(rand.Reader)
		if err != nil {
			return nil, err
		}
		out[p.Name] = k
	}
	return out, nil
}

// Seed creates what sc describes, all of it or nothing, each item through
// the ledger's own operation (Onboard, Mint, Preapprovals().Create, Offers().Create,
// Instructions().Create, ...), so every rule applies as it would to a
// request. Each item is its own update, as on the real network; what
// makes the whole seed one step is a snapshot taken first and restored if
// any item fails, while the restore gate holds every other request and
// automation of this process off (as Restore does), so nothing else lands
// between the items or is lost to the rollback. An error names the item
// (offers[1].to: ...).
//
// keys gives external parties' keys by name; NewScenarioKeys adds the
// missing ones (Seed does too). The items run in the order that keeps the
// balances exact: parties, featured rights and delegations first, then
// the instructions (each locks coin minted to its sender for it), then
// the preapprovals (after the instructions, which a preapproval would
// turn into direct transfers), then the balances, then the offers (whose
// senders must afford them).
func (s *Service) Seed(ctx context.Context, sc *Scenario, keys map[string]ed25519.PrivateKey) (SeedResult, error) {
	d, err := s.l.Dev()
	if err != nil {
		return SeedResult{}, err
	}
	if err := sc.Validate(); err != nil {
		return SeedResult{}, err
	}
	keys, err = NewScenarioKeys(sc, keys)
	if err != nil {
		return SeedResult{}, err
	}
	res := SeedResult{Parties: map[string]coin.PartyID{}, Keys: keys}
	run := &seeding{l: s.l, dg: s.dg, feat: s.feat, dev: s, sc: sc, res: &res}
	if err := undoable(ctx, s.l, d, run.run); err != nil {
		return SeedResult{}, err
	}
	return res, nil
}

// seeding is one Seed's run.
type seeding struct {
	l    *ledger.Ledger
	dg   *delegations.Service
	feat *featured.Service
	dev  *Service
	sc   *Scenario
	res  *SeedResult
}

// itemErr names the item an error is about: a validation error stays one
// (400), others keep their kind.
func itemErr(at string, err error) error {
	var v *fault.ValidationError
	switch {
	case errors.As(err, &v) && strings.HasPrefix(v.Field, at):
		return err // named already
	case v != nil:
		return &fault.ValidationError{Field: at, Msg: v.Error()}
	}
	return fmt.Errorf("%s: %w", at, err)
}

func (s *seeding) run(ctx context.Context) error {
	l, sc := s.l, s.sc
	for i, u := range sc.Users {
		at := fmt.Sprintf("users[%d]", i)
		got, err := users.Of(l).OnboardUser(ctx, u.Name, "")
		if err != nil {
			return itemErr(at, err)
		}
		if !got.Created {
			return fault.Invalid(at+".name", "a user %q is on the network already (seeded before? reset the network first: ccwallet devnet reset)", u.Name)
		}
		s.res.Parties[u.Name] = got.Party
	}
	for i, p := range sc.Parties {
		at := fmt.Sprintf("parties[%d]", i)
		var party coin.PartyID
		var err error
		if p.External {
			party, err = createExternalParty(ctx, l, p.Name, s.res.Keys[p.Name])
		} else {
			party, err = users.Of(l).AllocateParty(ctx, p.Name)
		}
		if err != nil {
			return itemErr(at, err)
		}
		s.res.Parties[p.Name] = party
	}
	if err := s.eachParty(ctx, s.delegate); err != nil {
		return err
	}
	for i, o := range sc.Instructions {
		if err := s.instruction(ctx, fmt.Sprintf("instructions[%d]", i), o); err != nil {
			return err
		}
	}
	if err := s.eachParty(ctx, func(ctx context.Context, at string, p ScenarioParty, party coin.PartyID) error {
		if !p.Preapproval {
			return nil
		}
		_, _, err := l.Preapprovals().Create(ctx, party)
		return err
	}); err != nil {
		return err
	}
	if err := s.eachParty(ctx, s.fund); err != nil {
		return err
	}
	for i, o := range sc.Offers {
		if err := s.offer(ctx, fmt.Sprintf("offers[%d]", i), o); err != nil {
			return err
		}
	}
	return nil
}

// eachParty runs fn for each user and party of the scenario, naming the
// item in its error.
func (s *seeding) eachParty(ctx context.Context, fn func(ctx context.Context, at string, p ScenarioParty, party coin.PartyID) error) error {
	for _, list := range []struct {
		name  string
		items []ScenarioParty
	}{{"users", s.sc.Users}, {"parties", s.sc.Parties}} {
		for i, p := range list.items {
			at := fmt.Sprintf("%s[%d]", list.name, i)
			if err := fn(ctx, at, p, s.res.Parties[p.Name]); err != nil {
				return itemErr(at, err)
			}
		}
	}
	return nil
}

// delegate grants the party's featured app right and its merge and
// minting delegations.
func (s *seeding) delegate(ctx context.Context, at string, p ScenarioParty, party coin.PartyID) error {
	l := s.l
	if p.Featured {
		if _, err := s.feat.SelfGrant(ctx, party); err != nil {
			return fmt.Errorf("featured: %w", err)
		}
	}
	if p.MergeDelegation {
		m, err := s.dg.ProposeMergeDelegation(ctx, party)
		if err != nil {
			return fmt.Errorf("merge_delegation: %w", err)
		}
		if _, err := s.dg.AcceptMergeDelegation(ctx, m.Contract.ContractID); err != nil {
			return fmt.Errorf("merge_delegation: %w", err)
		}
	}
	if md := p.MintingDelegation; md != nil {
		expires, err := scenarioExpiry(at+".minting_delegation", md.ExpiresAt, md.ExpiresIn, l.Now(), scenarioDelegationLifetime)
		if err != nil {
			return err
		}
		limit := md.MergeLimit
		if limit == 0 {
			limit = scenarioMergeLimit
		}
		prep, err := s.dg.PrepareMintingDelegationProposal(ctx, party, expires, limit)
		if err != nil {
			return fmt.Errorf("minting_delegation: %w", err)
		}
		key := s.res.Keys[p.Name]
		sig, err := external.SignHash(key, prep.TxHash)
		if err != nil {
			return err
		}
		sub, err := external.New(l, delegations.PreparedKinds(l)...).Submit(ctx, external.Submission{Party: party, Transaction: prep.Transaction, SignedTxHash: sig,
			PublicKey: hex.EncodeToString(key.Public().(ed25519.PublicKey))})
		if err != nil {
			return fmt.Errorf("minting_delegation: %w", err)
		}
		if _, err := s.dg.AcceptMintingDelegationProposal(ctx, l.Operator(), sub.ContractID); err != nil {
			return fmt.Errorf("minting_delegation: %w", err)
		}
	}
	return nil
}

// fund mints the party's balance or holdings.
func (s *seeding) fund(ctx context.Context, at string, p ScenarioParty, party coin.PartyID) error {
	amounts := p.Holdings
	if p.Balance != "" {
		amounts = []string{p.Balance}
	}
	if len(amounts) == 0 {
		return nil
	}
	parsed := make([]coin.Amount, len(amounts))
	for i, a := range amounts {
		parsed[i], _ = coin.ParseAmount(a) // Validate read them
	}
	return s.dev.MintBulk(ctx, party, parsed)
}

// resolve finds the party a transfer names: a user or party of the
// scenario, a user of the network, or a known party ID.
func (s *seeding) resolve(ctx context.Context, field, name string) (coin.PartyID, error) {
	if p, ok := s.res.Parties[name]; ok {
		return p, nil
	}
	if strings.Contains(name, "::") {
		p := coin.PartyID(name)
		if err := s.l.KnownParty(ctx, p); err != nil {
			return "", fault.Invalid(field, "no party %s is known on this network", name)
		}
		return p, nil
	}
	u, err := users.Of(s.l).Get(ctx, name)
	if err != nil {
		return "", err
	}
	if !u.Onboarded {
		return "", fault.Invalid(field, "%q is no user or party of the scenario, nor a user of the network", name)
	}
	return u.Party, nil
}

// scenarioTransfer is an offer or instruction with its parties resolved.
type scenarioTransfer struct {
	from, to coin.PartyID
	amount   coin.Amount
	expires  time.Time
}

func (s *seeding) transfer(ctx context.Context, at string, o ScenarioTransfer) (tr scenarioTransfer, err error) {
	if tr.from, err = s.resolve(ctx, at+".from", o.From); err != nil {
		return tr, err
	}
	if tr.to, err = s.resolve(ctx, at+".to", o.To); err != nil {
		return tr, err
	}
	if tr.from == tr.to {
		return tr, fault.Invalid(at+".to", "is the sender's own party")
	}
	if tr.amount, err = parseScenarioAmount(at+".amount", o.Amount); err != nil {
		return tr, err
	}
	tr.expires, err = scenarioExpiry(at, o.ExpiresAt, o.ExpiresIn, s.l.Now(), scenarioTransferLifetime)
	return tr, err
}

// instruction mints what the instruction locks (its amount and fee
// reserve) to its sender and creates the instruction, which locks that coin: the sender's available balance
// is the scenario's.
func (s *seeding) instruction(ctx context.Context, at string, o ScenarioTransfer) error {
	tr, err := s.transfer(ctx, at, o)
	if err != nil {
		return err
	}
	lock, err := s.instructionLock(ctx, tr.amount, tr.expires)
	if err != nil {
		return itemErr(at, err)
	}
	if _, err := s.dev.Mint(ctx, tr.from, lock, "scenario: "+at); err != nil {
		return itemErr(at, err)
	}
	r, err := s.l.Instructions().Create(ctx, ledger.TransferInstructionRequest{Sender: tr.from, Receiver: tr.to, Amount: tr.amount,
		Description: o.Description, ExecuteBefore: tr.expires, TrackingID: o.TrackingID})
	if err != nil {
		return itemErr(at, err)
	}
	if r.Status != ledger.InstructionPending {
		return fault.Invalid(at+".to", "%s has a transfer preapproval, so the transfer completed at once instead of waiting; give the receiver a balance instead", o.To)
	}
	return nil
}

func (s *seeding) offer(ctx context.Context, at string, o ScenarioTransfer) error {
	tr, err := s.transfer(ctx, at, o)
	if err != nil {
		return err
	}
	tracking := o.TrackingID
	if tracking == "" {
		tracking = "scenario-" + ledger.UUIDHex()[:12]
	}
	if _, _, err := s.l.Offers().Create(ctx, ledger.OfferRequest{Sender: tr.from, Receiver: tr.to, Amount: tr.amount, Description: o.Description,
		ExpiresAt: tr.expires, TrackingID: tracking}); err != nil {
		return itemErr(at, err)
	}
	return nil
}

// createExternalParty creates the external party hint with key through
// the same topology generate, sign and submit steps a client takes
// (ledger/external's onboarding, built here: it holds nothing but l).
func createExternalParty(ctx context.Context, l *ledger.Ledger, hint string, key ed25519.PrivateKey) (coin.PartyID, error) {
	x := external.New(l)
	pub := hex.EncodeToString(key.Public().(ed25519.PublicKey))
	_, txs, err := x.GenerateExternalTopology(hint, pub)
	if err != nil {
		return "", err
	}
	signed := make([]external.SignedTopologyTx, len(txs))
	for i, tx := range txs {
		sig, err := external.SignHash(key, tx.Hash)
		if err != nil {
			return "", err
		}
		signed[i] = external.SignedTopologyTx{Tx: tx.Tx, SignedHash: sig}
	}
	return x.SubmitExternalTopology(ctx, pub, signed)
}

// instructionLock is what an instruction of amount until executeBefore,
// created now, locks: the amount and its reserve at the current round's
// price (what the seed mints for it).
func (s *seeding) instructionLock(ctx context.Context, amount coin.Amount, executeBefore time.Time) (coin.Amount, error) {
	_, price, err := s.l.CurrentRound(ctx)
	if err != nil {
		return coin.Zero, err
	}
	return amount.Add(s.l.Rules().TransferLockReserve(amount, price, executeBefore.Sub(s.l.Now()))), nil
}
