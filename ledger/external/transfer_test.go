package external_test

import (
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/hex"
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

func TestExternalTransferFlow(t *testing.T) {
	ledgertest.ForEachEngineClock(t, func(t *testing.T, l *ledger.Ledger, clock *ledgertest.Clock) {
		x := external.New(l)
		ctx := context.Background()
		ext, key := ledgertest.ExternalParty(t, l, "ext-bob")
		_, otherKey := ledgertest.ExternalParty(t, l, "ext-carol")
		receiver := ledgertest.Party(t, l)
		ledgertest.Mint(t, l, ext, "1000")

		balanceOf := func(p coin.PartyID) coin.Amount {
			t.Helper()
			b, err := l.Balance(ctx, p)
			if err != nil {
				t.Fatal(err)
			}
			return b.EffectiveUnlocked.Add(b.EffectiveLocked)
		}
		var last external.Submission
		var lastRes external.SubmitResult
		for i := 0; i < 3; i++ {
			p, err := x.PrepareExternalTransfer(ctx, ext, receiver, coin.MustParse("10"), "payment")
			if err != nil {
				t.Fatal(err)
			}
			last = ledgertest.Sign(t, ext, key, p)
			if lastRes, err = x.Submit(ctx, last); err != nil {
				t.Fatalf("submit %d: %v", i, err)
			}
			if lastRes.UpdateID == "" || lastRes.ContractID == "" || lastRes.Replayed {
				t.Errorf("result = %+v", lastRes)
			}
		}
		if got := balanceOf(receiver); !got.Equal(coin.MustParse("30")) {
			t.Fatalf("receiver balance = %s, want 30", got)
		}
		before, extBefore := balanceOf(receiver), balanceOf(ext)

		p, err := x.PrepareExternalTransfer(ctx, ext, receiver, coin.MustParse("5"), "")
		if err != nil {
			t.Fatal(err)
		}
		other, err := x.PrepareExternalTransfer(ctx, ext, receiver, coin.MustParse("7"), "")
		if err != nil {
			t.Fatal(err)
		}
		good := ledgertest.Sign(t, ext, key, p)
		flip := func(s string, i int) string {
			b, _ := hex.DecodeString(s)
			b[i] ^= 0x01
			return hex.EncodeToString(b)
		}
		rawTx, _ := base64.StdEncoding.DecodeString(p.Transaction)
		flippedTx := append([]byte(nil), rawTx...)
		flippedTx[len(flippedTx)-3] ^= 0x01
		cases := []struct {
			name string
			mod  func(s external.Submission) external.Submission
			want error
		}{
			{"bit flipped in signature", func(s external.Submission) external.Submission { s.SignedTxHash = flip(s.SignedTxHash, 10); return s }, nil},
			{"signature by another key", func(s external.Submission) external.Submission {
				s.SignedTxHash = ledgertest.Sign(t, ext, otherKey, p).SignedTxHash
				return s
			}, nil},
			{"another party's key", func(s external.Submission) external.Submission {
				s.PublicKey = hex.EncodeToString(otherKey.Public().(ed25519.PublicKey))
				return s
			}, nil},
			{"signature for another transaction", func(s external.Submission) external.Submission {
				s.SignedTxHash = ledgertest.Sign(t, ext, key, other).SignedTxHash
				return s
			}, nil},
			{"bit flipped in transaction", func(s external.Submission) external.Submission {
				s.Transaction = base64.StdEncoding.EncodeToString(flippedTx)
				return s
			}, nil},
			{"another party id", func(s external.Submission) external.Submission { s.Party = receiver; return s }, nil},
			{"submitted as another kind", func(s external.Submission) external.Submission {
				s.Kind = delegations.KindMintingDelegationPropose
				return s
			}, nil},
		}
		for _, tc := range cases {
			_, err := x.Submit(ctx, tc.mod(good))
			if err == nil || !fault.IsValidation(err) {
				t.Errorf("%s: err = %v, want a validation error", tc.name, err)
			}
		}
		if got := balanceOf(receiver); !got.Equal(before) {
			t.Fatalf("tampered submissions moved coin: receiver %s, want %s", got, before)
		}
		// A replay of an executed submission answers the first result and
		// moves nothing.
		again, err := x.Submit(ctx, last)
		if err != nil || !again.Replayed || again.UpdateID != lastRes.UpdateID || again.ContractID != lastRes.ContractID {
			t.Errorf("replay = %+v, %v; want the first result %+v", again, err, lastRes)
		}
		if got, gotExt := balanceOf(receiver), balanceOf(ext); !got.Equal(before) || !gotExt.Equal(extBefore) {
			t.Fatalf("replay moved coin: receiver %s ext %s", got, gotExt)
		}
		// Expired preparations are refused.
		clock.Advance(external.DefaultPreparedTTL + time.Second)
		if _, err := x.Submit(ctx, good); !errors.Is(err, fault.ErrExpired) {
			t.Errorf("expired submission = %v, want ErrExpired", err)
		}
		if got := balanceOf(receiver); !got.Equal(before) {
			t.Fatalf("expired submission moved coin: %s", got)
		}
		// Not an external party, or nothing to prepare.
		if _, err := x.PrepareExternalTransfer(ctx, receiver, ext, coin.MustParse("1"), ""); !fault.IsValidation(err) {
			t.Errorf("prepare for a local party = %v, want a validation error", err)
		}
		if _, err := x.PrepareExternalTransfer(ctx, ext, receiver, coin.Zero, ""); !fault.IsValidation(err) {
			t.Errorf("prepare of zero = %v, want a validation error", err)
		}
		ledgertest.Conserved(t, l)
	})
}
