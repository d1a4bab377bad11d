package ledger

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger/commands"
	"github.com/ccwallet/ccwallet/ledger/fault"
	"github.com/ccwallet/ccwallet/store"
	"github.com/uptrace/bun"
)

// TestSendRuleWithoutDatabase: a one-step send's rule is a function from
// what its batch read to what it writes, run here on a Ledger with no
// database at all (a rule that reached for one would panic): it spends
// the largest unlocked holding that pays, gives the receiver its amount
// and the sender the change, burns the fee and the input's holding fees,
// so the coin adds up exactly; it writes the history, the command record
// and, for a featured provider, the provider's app reward; and a
// duplicate, a missing preapproval or too little unlocked coin fails with
// nothing written.
func TestSendRuleWithoutDatabase(t *testing.T) {
	at := time.Date(2026, 11, 26, 1, 0, 0, 0, time.UTC)
	l := &Ledger{core: &core{rules: DefaultRules(), dso: "dso::1"}, operator: "op::1", cfg: Config{Now: func() time.Time { return at }}}
	round := &store.Round{Number: 10, Price: coin.MustParse("0.005")}
	rate := l.rules.HoldingRate(round.Price)
	holdings := []store.Holding{
		{ContractID: "00a", Owner: "s::1", Amount: coin.MustParse("40"), CreatedRound: 2, Rate: rate},
		{ContractID: "00b", Owner: "s::1", Amount: coin.MustParse("1000"), CreatedRound: 2, Rate: rate,
			LockHolder: "instr", LockExpiresAt: bun.NullTime{Time: at.Add(time.Hour)}},
		{ContractID: "00c", Owner: "s::1", Amount: coin.MustParse("3"), CreatedRound: 9, Rate: rate},
	}
	preapproval := &store.TransferPreapproval{ContractID: "00p", Receiver: "r::1", Provider: "op::1", ExpiresAt: at.Add(time.Hour)}
	call := &sendCall{s: PreapprovalSend{Sender: "s::1", Receiver: "r::1", Amount: coin.MustParse("25"), DeduplicationID: "d1"}, cmd: commands.Command{Key: "preapproval-send:s::1:d1"}}
	run := func(rd store.PreapprovalSendReads) (*changes, *TransferResult, error) {
		c := l.newChanges("transfer-preapproval-send", round)
		c.offset = 7
		r, err := c.sendPreapprovedCommand(call, &rd)
		return &c, r, err
	}

	c, r, err := run(store.PreapprovalSendReads{Preapproval: preapproval, Featured: true, Holdings: holdings})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(r.Inputs, []coin.ContractID{"00a"}) || !slices.Equal(c.inputs, r.Inputs) {
		t.Fatalf("inputs %v (spent by the write: %v), want the largest unlocked holding 00a alone", r.Inputs, c.inputs)
	}
	if len(c.holdings) != 2 || c.holdings[0].Owner != "r::1" || !c.holdings[0].Amount.Equal(call.s.Amount) || c.holdings[1].Owner != "s::1" {
		t.Fatalf("new holdings %+v, want the receiver's 25 and the sender's change", c.holdings)
	}
	// What the input held at first is what the new holdings hold plus
	// what was burned: the fee and the holding fees of its 8 rounds.
	out := c.holdings[0].Amount.Add(c.holdings[1].Amount)
	if !holdings[0].Amount.Equal(out.Add(c.burned)) || !c.burned.Equal(r.Fees.Add(r.HoldingFees)) || !r.HoldingFees.IsPositive() {
		t.Errorf("input 40 = outputs %s + burned %s? fees %s, holding fees %s", out, c.burned, r.Fees, r.HoldingFees)
	}
	if len(c.history) != 1 || c.history[0].Party != "s::1" || c.history[0].CounterAmount == nil || !c.history[0].CounterAmount.Equal(call.s.Amount) {
		t.Errorf("history %+v, want one row both sides see", c.history)
	}
	if len(c.commands) != 1 || c.commands[0].DedupKey != call.cmd.Key || len(c.forget) != 0 {
		t.Errorf("commands %+v, forget %v: want the send's record alone", c.commands, c.forget)
	}
	if len(c.coupons) != 1 || c.coupons[0].Beneficiary != "op::1" || c.coupons[0].Kind != RewardApp || !c.coupons[0].Featured {
		t.Errorf("coupons %+v, want the featured provider's app reward", c.coupons)
	}
	if c.traffic <= 0 || c.minted.IsPositive() || len(c.archived) != 0 {
		t.Errorf("traffic %d, minted %s, archived %v", c.traffic, c.minted, c.archived)
	}

	// A key used past the deduplication window is used again: its old
	// record is forgotten in the same write.
	old := at.Add(-(commands.DeduplicationWindow + 1) * time.Second)
	if c, _, err := run(store.PreapprovalSendReads{CommandAt: old, Preapproval: preapproval, Holdings: holdings}); err != nil ||
		!slices.Equal(c.forget, []string{call.cmd.Key}) || len(c.coupons) != 0 {
		t.Errorf("a key past its window: %v, forget %v, coupons %d (not featured: none)", err, c.forget, len(c.coupons))
	}

	expired := *preapproval
	expired.ExpiresAt = at
	var invalid *fault.ValidationError
	for _, tt := range []struct {
		name string
		rd   store.PreapprovalSendReads
		is   func(error) bool
	}{
		{"duplicate", store.PreapprovalSendReads{CommandAt: at.Add(-time.Minute), Preapproval: preapproval, Holdings: holdings},
			func(err error) bool { return errors.Is(err, fault.ErrDuplicate) }},
		{"no preapproval", store.PreapprovalSendReads{Holdings: holdings}, func(err error) bool { return errors.As(err, &invalid) }},
		{"expired preapproval", store.PreapprovalSendReads{Preapproval: &expired, Holdings: holdings}, func(err error) bool { return errors.As(err, &invalid) }},
		{"locked coin only", store.PreapprovalSendReads{Preapproval: preapproval, Holdings: holdings[1:2]},
			func(err error) bool { return errors.Is(err, fault.ErrInsufficientFunds) }},
	} {
		c, r, err := run(tt.rd)
		if !tt.is(err) || r != nil {
			t.Errorf("%s: %+v, %v", tt.name, r, err)
		}
		if len(c.inputs)+len(c.holdings)+len(c.history)+len(c.commands)+len(c.coupons) != 0 || !c.burned.IsZero() {
			t.Errorf("%s: the failed send left changes %+v", tt.name, c)
		}
	}
}
