package ledger

// The transfer core: coin selection, the spend of inputs into outputs and
// change with their fees, the parties' locks, and the transfer primitive.
// One-step sends, offers, instructions, merges, airdrops, traffic and
// fees all spend through txn.transfer or txn.burnFrom, and so through
// selectInputs and spend.

import (
	"context"
	"fmt"
	"slices"
	"sort"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger/fault"
	"github.com/ccwallet/ccwallet/store"
	"github.com/uptrace/bun"
)

// Candidate is a holding offered to coin selection, valued at a round.
type Candidate struct {
	ID        coin.ContractID
	Effective coin.Amount
}

// SelectInputs picks the holdings that pay for target. It prefers few,
// large inputs: candidates are taken largest first (ties by contract ID, so
// the choice is deterministic) until they cover target. Holdings worth
// nothing are skipped. It fails with fault.ErrInsufficientFunds when all
// candidates together fall short, and also when covering target would
// need more than maxInputs holdings, saying that merging would help.
func SelectInputs(cands []Candidate, target coin.Amount, maxInputs int) ([]Candidate, coin.Amount, error) {
	sorted := make([]Candidate, 0, len(cands))
	total := coin.Zero
	for _, c := range cands {
		if c.Effective.IsPositive() {
			sorted = append(sorted, c)
			total = total.Add(c.Effective)
		}
	}
	if total.Cmp(target) < 0 {
		return nil, coin.Zero, notEnough(target, total)
	}
	sort.Slice(sorted, func(i, j int) bool {
		if c := sorted[i].Effective.Cmp(sorted[j].Effective); c != 0 {
			return c > 0
		}
		return sorted[i].ID < sorted[j].ID
	})
	sum := coin.Zero
	for i, c := range sorted {
		if i == maxInputs {
			return nil, coin.Zero, problem(fault.ErrInsufficientFunds, "insufficient funds: this needs %s CC including fees, but one transfer spends at most %d holdings and your largest %d cover %s CC; merge your holdings first (Approvals: let the validator merge them), or use a smaller amount",
				HumanCC(target), maxInputs, maxInputs, HumanCC(sum))
		}
		sum = sum.Add(c.Effective)
		if sum.Cmp(target) >= 0 && target.IsPositive() {
			return sorted[:i+1], sum, nil
		}
	}
	if !target.IsPositive() {
		return nil, coin.Zero, nil
	}
	return nil, coin.Zero, notEnough(target, total)
}

// Output is one receiver of a transfer.
type Output struct {
	Receiver coin.PartyID
	Amount   coin.Amount
	// Lock, when set, creates the output as a locked holding.
	Lock *Lock
}

// TransferResult says what a transfer consumed and created.
type TransferResult struct {
	Inputs      []coin.ContractID
	Outputs     []coin.ContractID
	Change      coin.ContractID
	Fees        coin.Amount
	HoldingFees coin.Amount
	InputTotal  coin.Amount
}

// transfer moves coin from sender's unlocked holdings to outputs inside t:
// it selects inputs, spends them with a guarded move to spent_holdings
// (at once, so later reads in t do not see them), creates the outputs and
// the change, burns fees and the inputs' accrued holding fees, and charges
// the submitting validator traffic per input. The caller must hold the
// sender's lock (lockParties).
func (t *txn) transfer(ctx context.Context, sender coin.PartyID, outs []Output) (*TransferResult, error) {
	hs, err := store.HoldingsByOwner(ctx, t.tx, sender)
	if err != nil {
		return nil, err
	}
	r, err := t.transferFrom(hs, sender, outs)
	if err != nil {
		return nil, err
	}
	return r, t.spendNow(ctx)
}

// transferFrom is transfer's rule on sender's live holdings hs, read
// already under the sender's lock: its inputs are left in t.spend, for
// commit's write to spend (guarded) unless the caller spends them sooner
// (spendNow).
func (t *changes) transferFrom(hs []store.Holding, sender coin.PartyID, outs []Output) (*TransferResult, error) {
	rules := t.l.rules
	if len(outs) == 0 {
		return nil, fault.Invalid("receivers", "at least one output is needed")
	}
	if len(outs) > rules.MaxNumOutputs {
		return nil, fault.Invalid("receivers", "at most %d outputs per transfer", rules.MaxNumOutputs)
	}
	need, fees := coin.Zero, coin.Zero
	for _, o := range outs {
		if !o.Amount.IsPositive() {
			return nil, fault.Invalid("amount", "must be positive")
		}
		fee := rules.OutputFee(o.Amount, t.round.Price, o.Receiver == sender)
		fees = fees.Add(fee)
		need = need.Add(o.Amount).Add(fee)
	}
	picked, byID, sum, err := t.selectInputs(hs, need)
	if err != nil {
		return nil, err
	}
	return t.spendInputs(sender, picked, byID, sum, need, fees, outs), nil
}

// burnFrom spends owner's unlocked holdings worth amount and burns it
// (fees, traffic), giving the change back. The caller holds owner's lock.
func (t *txn) burnFrom(ctx context.Context, owner coin.PartyID, amount coin.Amount) (*TransferResult, error) {
	hs, err := store.HoldingsByOwner(ctx, t.tx, owner)
	if err != nil {
		return nil, err
	}
	picked, byID, sum, err := t.selectInputs(hs, amount)
	if err != nil {
		return nil, err
	}
	// With no outputs, spend burns amount (as the fee) plus holding fees.
	return t.spend(ctx, owner, picked, byID, sum, amount, amount, nil)
}

// SelfTransfer is a self-transfer's move (ledger/selftransfer runs it):
// owner's holdings hs, read under owner's lock and checked as owner's
// unlocked ones, are spent at the update's round and owner gets one
// holding of amount, or of what they are worth when that is less, and the
// change, with no transfer fee; the inputs' holding fees are burned.
func (x *Tx) SelfTransfer(ctx context.Context, owner coin.PartyID, hs []store.Holding, amount coin.Amount) (*TransferResult, error) {
	t := x.t()
	byID := make(map[coin.ContractID]store.Holding, len(hs))
	picked := make([]Candidate, len(hs))
	sum := coin.Zero
	for i, h := range hs {
		byID[h.ContractID] = h
		picked[i] = Candidate{ID: h.ContractID, Effective: EffectiveAmount(h.Amount, h.Rate, h.CreatedRound, t.round.Number)}
		sum = sum.Add(picked[i].Effective)
	}
	amount = coin.Min(amount, sum)
	var outs []Output
	if amount.IsPositive() {
		outs = []Output{{Receiver: owner, Amount: amount}}
	}
	return t.spend(ctx, owner, picked, byID, sum, amount, coin.Zero, outs)
}

// selectInputs values owner's unlocked holdings hs at the transaction's
// round, leaving out those t spends already, and picks those that pay for
// need (SelectInputs).
func (t *changes) selectInputs(hs []store.Holding, need coin.Amount) ([]Candidate, map[coin.ContractID]store.Holding, coin.Amount, error) {
	byID := make(map[coin.ContractID]store.Holding, len(hs))
	cands := make([]Candidate, 0, len(hs))
	for _, h := range hs {
		if h.LockHolder != "" || slices.Contains(t.inputs, h.ContractID) {
			continue
		}
		byID[h.ContractID] = h
		cands = append(cands, Candidate{ID: h.ContractID, Effective: EffectiveAmount(h.Amount, h.Rate, h.CreatedRound, t.round.Number)})
	}
	picked, sum, err := SelectInputs(cands, need, t.l.rules.MaxNumInputs)
	if err != nil {
		return nil, nil, coin.Zero, err
	}
	return picked, byID, sum, nil
}

// spend consumes picked inputs (worth sum) at once and creates outs plus
// change (spendInputs).
func (t *txn) spend(ctx context.Context, sender coin.PartyID, picked []Candidate, byID map[coin.ContractID]store.Holding, sum, need, fees coin.Amount, outs []Output) (*TransferResult, error) {
	res := t.spendInputs(sender, picked, byID, sum, need, fees, outs)
	return res, t.spendNow(ctx)
}

// spendInputs records picked inputs (worth sum) in t.inputs and creates
// outs plus change; it burns fees and the inputs' holding fees.
func (t *changes) spendInputs(sender coin.PartyID, picked []Candidate, byID map[coin.ContractID]store.Holding, sum, need, fees coin.Amount, outs []Output) *TransferResult {
	res := &TransferResult{Fees: fees}
	initial := coin.Zero
	for _, c := range picked {
		res.Inputs = append(res.Inputs, c.ID)
		initial = initial.Add(byID[c.ID].Amount)
	}
	t.inputs = append(t.inputs, res.Inputs...)
	res.InputTotal = sum
	res.HoldingFees = initial.Sub(sum)
	for _, o := range outs {
		res.Outputs = append(res.Outputs, t.newHolding(o.Receiver, o.Amount, o.Lock))
	}
	if change := sum.Sub(need); change.IsPositive() {
		res.Change = t.newHolding(sender, change, nil)
	}
	t.burn(fees.Add(res.HoldingFees))
	t.traffic += t.l.rules.TrafficBytes(len(res.Inputs))
	return res
}

// spendNow spends the inputs t has recorded (t.inputs) at once, so that
// later reads in t's database transaction do not see them.
func (t *txn) spendNow(ctx context.Context) error {
	ids := t.inputs
	t.inputs = nil
	return t.spendHoldings(ctx, ids)
}

// LockParties takes the per-party locks an operation needs in tx, until
// tx ends, in a fixed order so two operations on the same pair cannot
// deadlock.
func (l *Ledger) LockParties(ctx context.Context, tx bun.Tx, parties ...coin.PartyID) error {
	for _, k := range partyLockKeys(parties) {
		if err := l.db.LockKey(ctx, tx, k); err != nil {
			return err
		}
	}
	return nil
}

// partyLockKeys are the lock keys of parties, sorted and without
// duplicates, so every operation takes them in the same order.
func partyLockKeys(parties []coin.PartyID) []string {
	ps := make([]string, 0, len(parties))
	for _, p := range parties {
		ps = append(ps, string(p))
	}
	sort.Strings(ps)
	keys := make([]string, 0, len(ps))
	for i, p := range ps {
		if i == 0 || p != ps[i-1] {
			keys = append(keys, "party:"+p)
		}
	}
	return keys
}

// TransferRequest is a direct transfer between two parties (the primitive
// the other workflows build on).
type TransferRequest struct {
	Sender      coin.PartyID
	Receiver    coin.PartyID
	Amount      coin.Amount
	Description string
	// Kind names the workflow in history (e.g. "TransferPreapprovalSend").
	Kind string
}

// Transfer moves amount from sender to receiver in one step.
func (l *Ledger) Transfer(ctx context.Context, req TransferRequest) (*TransferResult, error) {
	if err := l.KnownParty(ctx, req.Receiver); err != nil {
		return nil, err
	}
	if req.Kind == "" {
		req.Kind = "Transfer"
	}
	var res *TransferResult
	err := l.change(ctx, func(ctx context.Context, c *change) error {
		t, err := c.begin(ctx, "transfer", req.Sender)
		if err != nil {
			return err
		}
		hs, err := store.HoldingsByOwner(ctx, c.tx, req.Sender)
		if err != nil {
			return err
		}
		// The inputs' spend rides commit's write: a statement fewer.
		r, err := t.transferFrom(hs, req.Sender, []Output{{Receiver: req.Receiver, Amount: req.Amount}})
		if err != nil {
			return err
		}
		t.recordTransfer(req.Sender, req.Receiver, req.Amount, r, req.Kind, req.Description)
		res = r
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("transfer %s from %s to %s: %w", req.Amount, req.Sender, req.Receiver, err)
	}
	return res, nil
}

// recordTransfer writes the history of a transfer for both sides.
func (t *changes) recordTransfer(sender, receiver coin.PartyID, amount coin.Amount, r *TransferResult, subtype, description string) {
	d := HistoryDetails{Provider: t.l.operator, HoldingFees: r.HoldingFees, Fees: r.Fees}
	if len(r.Outputs) > 0 {
		d.ContractID = r.Outputs[0]
	}
	if receiver == sender {
		// A transfer to oneself shows once, as what it cost.
		t.record(sender, HistoryTransfer, subtype, receiver, r.Cost(coin.Zero).Neg(), r.Fees.Add(r.HoldingFees), description, d)
		return
	}
	t.recordPair(sender, receiver, HistoryTransfer, subtype, r.Cost(amount).Neg(), r.Fees.Add(r.HoldingFees), amount, coin.Zero, description, d)
}

// Cost is what a transfer with outputs worth outputs (those that leave
// the sender's available balance: to others, or locked) takes from that
// balance: the outputs, the fees, and the holding fees of the inputs,
// charged now. It is the inputs' initial amounts less the change.
func (r *TransferResult) Cost(outputs coin.Amount) coin.Amount {
	return outputs.Add(r.Fees).Add(r.HoldingFees)
}
