package external_test

import (
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"errors"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/external"
	"github.com/ccwallet/ccwallet/ledger/fault"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/ccwallet/ccwallet/ledger/provider"
	"github.com/ccwallet/ccwallet/ledger/rewards"
)

// TestExternalPreapprovalFlow runs the whole external-party preapproval
// flow: topology, setup proposal, acceptance (the preapproval), three sends
// from another external party through it, the balance, and every
// tampering case, which must be refused and change nothing.
func TestExternalPreapprovalFlow(t *testing.T) {
	ledgertest.ForEachEngineClock(t, func(t *testing.T, l *ledger.Ledger, clock *ledgertest.Clock) {
		x := external.New(l)
		ctx := context.Background()
		recv, recvKey := ledgertest.ExternalParty(t, l, "ext-recv")
		sender, key := ledgertest.ExternalParty(t, l, "ext-send")
		_, otherKey := ledgertest.ExternalParty(t, l, "ext-other")
		local := ledgertest.Party(t, l)
		ledgertest.Mint(t, l, sender, "1000")

		// Proposal: one at a time, for external parties only.
		if _, err := x.CreateSetupProposal(ctx, local); !fault.IsValidation(err) {
			t.Errorf("proposal for a local party = %v, want a validation error", err)
		}
		if _, err := x.CreateSetupProposal(ctx, coin.PartyID("ghost::1220"+hex.EncodeToString(make([]byte, 32)))); !errors.Is(err, fault.ErrNotFound) {
			t.Errorf("proposal for an unknown party = %v, want ErrNotFound", err)
		}
		prop, err := x.CreateSetupProposal(ctx, recv)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := x.CreateSetupProposal(ctx, recv); !errors.Is(err, fault.ErrConflict) {
			t.Errorf("second proposal = %v, want ErrConflict", err)
		}
		ps, err := external.New(l).SetupProposals(ctx)
		if err != nil || len(ps) != 1 || ps[0].ContractID != prop || ps[0].TemplateID != ledger.TemplateExternalPartySetupProposal {
			t.Fatalf("proposals = %+v, %v", ps, err)
		}
		if _, err := x.PrepareAcceptSetupProposal(ctx, prop, sender); !fault.IsValidation(err) {
			t.Errorf("accept by another party = %v, want a validation error", err)
		}
		if _, err := x.PrepareAcceptSetupProposal(ctx, coin.NewContractID(), recv); !errors.Is(err, fault.ErrNotFound) {
			t.Errorf("accept of no proposal = %v, want ErrNotFound", err)
		}
		acc, err := x.PrepareAcceptSetupProposal(ctx, prop, recv)
		if err != nil {
			t.Fatal(err)
		}
		accSub := ledgertest.Sign(t, recv, recvKey, acc)
		accSub.Kind = external.KindTransferPreapprovalSend
		if _, err := x.Submit(ctx, accSub); !fault.IsValidation(err) {
			t.Errorf("accept submitted as a send = %v, want a validation error", err)
		}
		accSub.Kind = external.KindSetupProposalAccept
		res, err := x.Submit(ctx, accSub)
		if err != nil {
			t.Fatal(err)
		}
		pre, err := provider.New(l).Preapproval(ctx, recv)
		if err != nil || pre.ContractID != res.ContractID || pre.Provider != l.Operator() || !pre.ExpiresAt.Equal(clock.Now().Add(ledger.PreapprovalLifetime).Truncate(time.Microsecond)) {
			t.Fatalf("preapproval = %+v, %v; submit = %+v", pre, err, res)
		}
		if ps, _ := external.New(l).SetupProposals(ctx); len(ps) != 0 {
			t.Errorf("proposal not archived: %+v", ps)
		}
		if again, err := x.Submit(ctx, accSub); err != nil || !again.Replayed || again.ContractID != res.ContractID {
			t.Errorf("replayed accept = %+v, %v", again, err)
		}
		if _, err := x.CreateSetupProposal(ctx, recv); !errors.Is(err, fault.ErrConflict) {
			t.Errorf("proposal with a preapproval = %v, want ErrConflict", err)
		}

		// Three sends, nonces 0, 1, 2.
		if _, err := external.New(l).TransferCommandCounter(ctx, sender); !errors.Is(err, fault.ErrNotFound) {
			t.Errorf("counter before any send = %v, want ErrNotFound", err)
		}
		send := func(nonce int64, amount string) external.PreapprovalSendRequest {
			return external.PreapprovalSendRequest{Sender: sender, Receiver: recv, Amount: coin.MustParse(amount),
				ExpiresAt: clock.Now().Add(time.Hour), Nonce: nonce, Description: "rent"}
		}
		var last external.Submission
		var lastRes external.SubmitResult
		for i := int64(0); i < 3; i++ {
			p, err := x.PrepareTransferPreapprovalSend(ctx, send(i, "10"))
			if err != nil {
				t.Fatalf("prepare %d: %v", i, err)
			}
			last = ledgertest.Sign(t, sender, key, p)
			last.Kind = external.KindTransferPreapprovalSend
			if lastRes, err = x.Submit(ctx, last); err != nil {
				t.Fatalf("submit %d: %v", i, err)
			}
			c, err := external.New(l).TransferCommandCounter(ctx, sender)
			if err != nil || c.NextNonce != i+1 || c.Contract.TemplateID != ledger.TemplateTransferCommandCounter {
				t.Fatalf("counter after send %d = %+v, %v", i, c, err)
			}
		}
		balances := func() (coin.Amount, coin.Amount) {
			t.Helper()
			r, err := external.New(l).ExternalPartyBalance(ctx, recv)
			if err != nil {
				t.Fatal(err)
			}
			s, err := external.New(l).ExternalPartyBalance(ctx, sender)
			if err != nil {
				t.Fatal(err)
			}
			return r.Total(), s.Total()
		}
		recvBal, senderBal := balances()
		if !recvBal.Equal(coin.MustParse("30")) || senderBal.Cmp(coin.MustParse("970")) > 0 {
			t.Fatalf("balances: receiver %s (want 30), sender %s (want <= 970)", recvBal, senderBal)
		}

		appCoupons := func() int {
			t.Helper()
			cs, err := rewards.New(l).Coupons(ctx, l.Operator(), ledger.RewardApp)
			if err != nil {
				t.Fatal(err)
			}
			return len(cs)
		}
		if n := appCoupons(); n != 3 {
			t.Errorf("featured app reward coupons of the provider after three sends = %d, want 3", n)
		}
		if vc, err := rewards.New(l).Coupons(ctx, l.Operator(), ledger.RewardValidator); err != nil || len(vc) != 1 {
			t.Errorf("validator reward coupons for the preapproval fee = %d, %v; want 1", len(vc), err)
		}

		// Wrong nonces are refused at preparation.
		for _, n := range []int64{0, 2, 4} {
			if _, err := x.PrepareTransferPreapprovalSend(ctx, send(n, "1")); !errors.Is(err, fault.ErrConflict) {
				t.Errorf("prepare with nonce %d = %v, want ErrConflict", n, err)
			}
		}
		// No preapproval: 400.
		noPre := send(3, "1")
		noPre.Receiver = local
		if _, err := x.PrepareTransferPreapprovalSend(ctx, noPre); !fault.IsValidation(err) {
			t.Errorf("prepare to a party without preapproval = %v, want a validation error", err)
		}

		// Tampering: all refused, nothing moves.
		p, err := x.PrepareTransferPreapprovalSend(ctx, send(3, "5"))
		if err != nil {
			t.Fatal(err)
		}
		twin, err := x.PrepareTransferPreapprovalSend(ctx, send(3, "7"))
		if err != nil {
			t.Fatal(err)
		}
		good := ledgertest.Sign(t, sender, key, p)
		good.Kind = external.KindTransferPreapprovalSend
		flippedHash, _ := hex.DecodeString(p.TxHash)
		flippedHash[7] ^= 0x01
		sigFlipped, err := external.SignHash(key, hex.EncodeToString(flippedHash))
		if err != nil {
			t.Fatal(err)
		}
		for name, mod := range map[string]func(s external.Submission) external.Submission{
			"bit flipped in the hash": func(s external.Submission) external.Submission { s.SignedTxHash = sigFlipped; return s },
			"signature by another key": func(s external.Submission) external.Submission {
				s.SignedTxHash = ledgertest.Sign(t, sender, otherKey, p).SignedTxHash
				return s
			},
			"another key claimed": func(s external.Submission) external.Submission {
				s.PublicKey = hex.EncodeToString(otherKey.Public().(ed25519.PublicKey))
				return s
			},
			"signature for another tx": func(s external.Submission) external.Submission {
				s.SignedTxHash = ledgertest.Sign(t, sender, key, twin).SignedTxHash
				return s
			},
			"submitted as an acceptance": func(s external.Submission) external.Submission { s.Kind = external.KindSetupProposalAccept; return s },
		} {
			if _, err := x.Submit(ctx, mod(good)); !fault.IsValidation(err) {
				t.Errorf("%s: %v, want a validation error", name, err)
			}
		}
		// Replay: the same signed submission answers the first result.
		if again, err := x.Submit(ctx, last); err != nil || !again.Replayed || again.UpdateID != lastRes.UpdateID {
			t.Errorf("replay = %+v, %v", again, err)
		}
		if r, s := balances(); !r.Equal(recvBal) || !s.Equal(senderBal) {
			t.Fatalf("refused submissions moved coin: receiver %s sender %s", r, s)
		}
		if n := appCoupons(); n != 3 {
			t.Errorf("refused submissions created app reward coupons: %d, want 3", n)
		}
		// Two preparations with one nonce: the first wins, the other is a
		// conflict at submission.
		if _, err := x.Submit(ctx, good); err != nil {
			t.Fatal(err)
		}
		twinSub := ledgertest.Sign(t, sender, key, twin)
		if _, err := x.Submit(ctx, twinSub); !errors.Is(err, fault.ErrConflict) {
			t.Errorf("second use of nonce 3 = %v, want ErrConflict", err)
		}
		recvBal, senderBal = balances()
		if !recvBal.Equal(coin.MustParse("35")) {
			t.Fatalf("receiver = %s, want 35", recvBal)
		}
		// expires_at passed, or the preparation expired: 409, nothing moves.
		short := send(4, "1")
		short.ExpiresAt = clock.Now().Add(time.Minute)
		ps1, err := x.PrepareTransferPreapprovalSend(ctx, short)
		if err != nil {
			t.Fatal(err)
		}
		ps2, err := x.PrepareTransferPreapprovalSend(ctx, send(4, "1"))
		if err != nil {
			t.Fatal(err)
		}
		clock.Advance(2 * time.Minute)
		if _, err := x.Submit(ctx, ledgertest.Sign(t, sender, key, ps1)); !errors.Is(err, fault.ErrExpired) {
			t.Errorf("submit past expires_at = %v, want ErrExpired", err)
		}
		clock.Advance(external.DefaultPreparedTTL)
		if _, err := x.Submit(ctx, ledgertest.Sign(t, sender, key, ps2)); !errors.Is(err, fault.ErrExpired) {
			t.Errorf("submit of an expired preparation = %v, want ErrExpired", err)
		}
		if r, s := balances(); !r.Equal(recvBal) || !s.Equal(senderBal) {
			t.Fatalf("expired submissions moved coin: receiver %s sender %s", r, s)
		}
		if c, _ := external.New(l).TransferCommandCounter(ctx, sender); c.NextNonce != 4 {
			t.Errorf("next nonce = %d, want 4", c.NextNonce)
		}
		ledgertest.Conserved(t, l)
	})
}
