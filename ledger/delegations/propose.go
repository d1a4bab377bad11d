package delegations

import (
	"context"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/bounds"
	"github.com/ccwallet/ccwallet/ledger/external"
	"github.com/ccwallet/ccwallet/ledger/fault"
)

// KindMintingDelegationPropose is the prepared kind (ledger/external) by
// which an external party creates a MintingDelegationProposal of its own
// naming the validator operator as delegate.
const KindMintingDelegationPropose = "minting-delegation/propose"

// mintingDelegationArgs are the args of KindMintingDelegationPropose.
type mintingDelegationArgs struct {
	Delegate   coin.PartyID `json:"delegate"`
	ExpiresAt  string       `json:"expires_at"`
	MergeLimit int          `json:"merge_limit"`
}

// PreparedKinds are the prepared kinds of l's delegations, for
// external.New: the minting delegation proposal an external party signs.
func PreparedKinds(l *ledger.Ledger) []external.Kind {
	return []external.Kind{{Name: KindMintingDelegationPropose, Executor: external.Executor{
		Parties: external.SenderOnly,
		Run: func(_ context.Context, x *ledger.Tx, b *external.PreparedBody) (coin.ContractID, error) {
			var a mintingDelegationArgs
			if err := external.DecodeArgs(b, &a); err != nil {
				return "", err
			}
			expires, err := time.Parse(time.RFC3339Nano, a.ExpiresAt)
			if err != nil {
				return "", fault.Invalid("transaction", "has a malformed expires_at: %v", err)
			}
			return x.Create(TemplateMintingDelegationProposal, MintingDelegationPayload(l.DSO(), MintingDelegation{
				Beneficiary: b.Party, Delegate: a.Delegate, ExpiresAt: expires, MergeLimit: a.MergeLimit,
			}), b.Party, a.Delegate), nil
		},
	}}}
}

// MaxMergeLimit bounds a minting delegation's amulet merge limit.
const MaxMergeLimit = 1000

// PrepareMintingDelegationProposal prepares, for the external party
// beneficiary to sign, the creation of a MintingDelegationProposal naming
// this validator's operator as delegate (ledger/external's Submit executes
// it, given PreparedKinds).
func (s *Service) PrepareMintingDelegationProposal(ctx context.Context, beneficiary coin.PartyID, expiresAt time.Time, mergeLimit int) (external.Prepared, error) {
	if err := bounds.CheckExpiry("expires_at", expiresAt, s.l.Now()); err != nil {
		return external.Prepared{}, err
	}
	if mergeLimit < 1 || mergeLimit > MaxMergeLimit {
		return external.Prepared{}, fault.Invalid("merge_limit", "must be between 1 and %d", MaxMergeLimit)
	}
	return s.ext.Prepare(ctx, beneficiary, KindMintingDelegationPropose, nil,
		mintingDelegationArgs{Delegate: s.l.Operator(), ExpiresAt: ledger.FormatTime(expiresAt), MergeLimit: mergeLimit}, time.Time{})
}
