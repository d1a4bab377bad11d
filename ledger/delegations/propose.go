package delegations

import (
	"context"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
)

// PrepareMintingDelegationProposal prepares, for the external party
// beneficiary to sign, the creation of a MintingDelegationProposal naming
// this validator's operator as delegate (ledger/external's Submit executes
// it).
func (s *Service) PrepareMintingDelegationProposal(ctx context.Context, beneficiary coin.PartyID, expiresAt time.Time, mergeLimit int) (ledger.Prepared, error) {
	if err := ledger.CheckExpiry("expires_at", expiresAt, s.l.Now()); err != nil {
		return ledger.Prepared{}, err
	}
	if mergeLimit < 1 || mergeLimit > ledger.MaxMergeLimit {
		return ledger.Prepared{}, ledger.Invalid("merge_limit", "must be between 1 and %d", ledger.MaxMergeLimit)
	}
	return ledger.Prepare(ctx, s.l, beneficiary, ledger.KindMintingDelegationPropose, nil,
		ledger.MintingDelegationArgs{Delegate: s.l.Operator(), ExpiresAt: ledger.FormatTime(expiresAt), MergeLimit: mergeLimit}, time.Time{})
}
