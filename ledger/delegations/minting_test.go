package delegations_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/delegations"
	"github.com/ccwallet/ccwallet/ledger/external"
	"github.com/ccwallet/ccwallet/ledger/fault"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
)

func TestMintingDelegations(t *testing.T) {
	forEachEngineClock(t, func(t *testing.T, l *ledger.Ledger, clock *ledgertest.Clock) {
		ctx := context.Background()
		ext, key := ledgertest.ExternalParty(t, l, "ext-erin")
		op := l.Operator()
		stranger := ledgertest.Party(t, l)
		propose := func(limit int, expires time.Duration) coin.ContractID {
			t.Helper()
			p, err := delegations.New(l).PrepareMintingDelegationProposal(ctx, ext, clock.Now().Add(expires), limit)
			if err != nil {
				t.Fatal(err)
			}
			r, err := external.New(l, delegations.PreparedKinds(l)...).Submit(ctx, ledgertest.Sign(t, ext, key, p))
			if err != nil {
				t.Fatal(err)
			}
			return r.ContractID
		}
		p1 := propose(10, 24*time.Hour)
		ps, err := delegations.New(l).MintingDelegationProposals(ctx, op)
		if err != nil || len(ps) != 1 || ps[0].Contract.ContractID != p1 || ps[0].Beneficiary != ext || ps[0].MergeLimit != 10 {
			t.Fatalf("proposals = %+v, %v", ps, err)
		}
		if ps, _ := delegations.New(l).MintingDelegationProposals(ctx, stranger); len(ps) != 0 {
			t.Errorf("a stranger sees proposals: %+v", ps)
		}
		if _, err := delegations.New(l).AcceptMintingDelegationProposal(ctx, stranger, p1); !errors.Is(err, fault.ErrNotFound) {
			t.Errorf("stranger accepts = %v, want ErrNotFound", err)
		}
		d1, err := delegations.New(l).AcceptMintingDelegationProposal(ctx, op, p1)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := delegations.New(l).AcceptMintingDelegationProposal(ctx, op, p1); !errors.Is(err, fault.ErrNotFound) {
			t.Errorf("accepting twice = %v, want ErrNotFound", err)
		}
		if err := delegations.New(l).RejectMintingDelegationProposal(ctx, op, p1); !errors.Is(err, fault.ErrNotFound) {
			t.Errorf("rejecting an accepted proposal = %v, want ErrNotFound", err)
		}
		// A new accepted proposal replaces the delegation.
		p2 := propose(20, 48*time.Hour)
		d2, err := delegations.New(l).AcceptMintingDelegationProposal(ctx, op, p2)
		if err != nil {
			t.Fatal(err)
		}
		ds, err := delegations.New(l).MintingDelegations(ctx, op)
		if err != nil || len(ds) != 1 || ds[0].Contract.ContractID != d2 || ds[0].MergeLimit != 20 {
			t.Fatalf("delegations = %+v, %v; want only %s", ds, err, d2)
		}
		if err := delegations.New(l).WithdrawMintingDelegation(ctx, op, d1); !errors.Is(err, fault.ErrNotFound) {
			t.Errorf("withdrawing the replaced delegation = %v, want ErrNotFound", err)
		}
		active, err := delegations.New(l).ActiveMintingDelegations(ctx)
		if err != nil || len(active) != 1 || active[0].Beneficiary != ext {
			t.Fatalf("active = %+v, %v", active, err)
		}
		// Reject, withdraw, and the illegal repeats.
		p3 := propose(5, time.Hour)
		if err := delegations.New(l).RejectMintingDelegationProposal(ctx, stranger, p3); !errors.Is(err, fault.ErrNotFound) {
			t.Errorf("stranger rejects = %v", err)
		}
		if err := delegations.New(l).RejectMintingDelegationProposal(ctx, op, p3); err != nil {
			t.Fatal(err)
		}
		if _, err := delegations.New(l).AcceptMintingDelegationProposal(ctx, op, p3); !errors.Is(err, fault.ErrNotFound) {
			t.Errorf("accepting a rejected proposal = %v", err)
		}
		if err := delegations.New(l).WithdrawMintingDelegation(ctx, stranger, d2); !errors.Is(err, fault.ErrNotFound) {
			t.Errorf("stranger withdraws = %v", err)
		}
		if err := delegations.New(l).WithdrawMintingDelegation(ctx, op, p3); !errors.Is(err, fault.ErrNotFound) {
			t.Errorf("withdrawing a proposal as a delegation = %v", err)
		}
		if err := delegations.New(l).WithdrawMintingDelegation(ctx, op, d2); err != nil {
			t.Fatal(err)
		}
		if err := delegations.New(l).WithdrawMintingDelegation(ctx, op, d2); !errors.Is(err, fault.ErrNotFound) {
			t.Errorf("withdrawing twice = %v", err)
		}
		if active, _ := delegations.New(l).ActiveMintingDelegations(ctx); len(active) != 0 {
			t.Errorf("active after withdraw = %+v", active)
		}
		// An expired proposal cannot be accepted.
		p4 := propose(5, time.Minute)
		clock.Advance(2 * time.Minute)
		if _, err := delegations.New(l).AcceptMintingDelegationProposal(ctx, op, p4); !errors.Is(err, fault.ErrExpired) {
			t.Errorf("accepting an expired proposal = %v, want ErrExpired", err)
		}
		// Bad proposals are refused at preparation.
		if _, err := delegations.New(l).PrepareMintingDelegationProposal(ctx, ext, clock.Now().Add(-time.Hour), 5); !fault.IsValidation(err) {
			t.Errorf("past expiry = %v", err)
		}
		if _, err := delegations.New(l).PrepareMintingDelegationProposal(ctx, ext, clock.Now().Add(time.Hour), 0); !fault.IsValidation(err) {
			t.Errorf("zero merge limit = %v", err)
		}
		if _, err := delegations.New(l).PrepareMintingDelegationProposal(ctx, stranger, clock.Now().Add(time.Hour), 5); !fault.IsValidation(err) {
			t.Errorf("local party proposes = %v", err)
		}
	})
}
