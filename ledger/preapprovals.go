package ledger

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger/bounds"
	"github.com/ccwallet/ccwallet/ledger/commands"
	"github.com/ccwallet/ccwallet/ledger/fault"
	"github.com/ccwallet/ccwallet/store"
	"github.com/uptrace/bun"
)

// TemplateTransferPreapproval is the real network's preapproval template.
const TemplateTransferPreapproval = "#splice-amulet:Splice.AmuletRules:TransferPreapproval"

// Preapproval lifetimes, the validator app's defaults (Splice v0.4.15,
// apps/validator/.../config/ValidatorAppConfig.scala TransferPreapprovalConfig:
// preapprovalLifetime = 90 days, renewalDuration = 30 days).
const (
	// PreapprovalLifetime is how long a new or renewed preapproval lasts.
	PreapprovalLifetime = 90 * 24 * time.Hour
	// PreapprovalRenewalWindow: preapprovals expiring within it are renewed.
	PreapprovalRenewalWindow = 30 * 24 * time.Hour
)

// Preapprovals are the core's transfer preapprovals of one validator's
// ledger: a receiver's standing consent to one-step transfers, created
// and renewed for a fee its provider pays, cancelled, read, and sent
// through (Send, the one-step transfer's rule).
type Preapprovals struct{ l *Ledger }

// Preapprovals returns l's preapprovals.
func (l *Ledger) Preapprovals() Preapprovals { return Preapprovals{l} }

type preapprovalPayload struct {
	DSO           coin.PartyID `json:"dso"`
	Receiver      coin.PartyID `json:"receiver"`
	Provider      coin.PartyID `json:"provider"`
	ValidFrom     string       `json:"validFrom"`
	LastRenewedAt string       `json:"lastRenewedAt"`
	ExpiresAt     string       `json:"expiresAt"`
}

// Preapproval is a receiver's transfer preapproval.
type Preapproval struct {
	ContractID    coin.ContractID
	Receiver      coin.PartyID
	Provider      coin.PartyID
	ValidFrom     time.Time
	LastRenewedAt time.Time
	ExpiresAt     time.Time
	Contract      Contract
}

// Fee is the fee, in coin at price, for a preapproval lasting
// d: whole and partial days × TransferPreapprovalFeeUSDPerDay ÷ price.
func (pa Preapprovals) Fee(d time.Duration, price coin.Amount) coin.Amount {
	l := pa.l
	usd := l.rules.TransferPreapprovalFeeUSDPerDay.MulInt(int64(d / time.Microsecond)).Div(coin.FromInt(int64(24 * time.Hour / time.Microsecond)))
	return USDToCoin(usd, price)
}

// operatorCannotPay is the error of a preapproval fee the operator's
// wallet lacks missing for.
func operatorCannotPay(missing coin.Amount) error {
	return fault.Invalid("", "the validator operator cannot pay the preapproval fee (missing %s CC); ask the operator to add coin to their wallet", HumanCC(missing))
}

// FundProvider makes sure provider can pay fee. On a development network
// the faucet taps what is missing (the real validator taps for its own
// automation on devnet); elsewhere a shortfall is a 400.
func (pa Preapprovals) FundProvider(ctx context.Context, provider coin.PartyID, d time.Duration) error {
	l := pa.l
	b, err := l.Balance(ctx, provider)
	if err != nil {
		return err
	}
	fee := pa.Fee(d, b.Price)
	if b.EffectiveUnlocked.Cmp(fee) >= 0 {
		return nil
	}
	missing := fee.Sub(b.EffectiveUnlocked)
	if !l.cfg.DevNet {
		return operatorCannotPay(missing)
	}
	return l.change(ctx, func(ctx context.Context, c *change) error {
		t, err := c.begin(ctx, "tap")
		if err != nil {
			return err
		}
		cid := t.mint(provider, missing)
		t.record(provider, HistoryBalanceChange, "Tap", "", missing, coin.Zero, "preapproval fee", HistoryDetails{ContractID: cid})
		return nil
	})
}

// chargePreapproval burns the preapproval fee for d from provider inside t
// and records it in the provider's history.
func (t *txn) chargePreapproval(ctx context.Context, provider, receiver coin.PartyID, d time.Duration, subtype string) error {
	fee := t.l.Preapprovals().Fee(d, t.round.Price)
	r, err := t.burnFrom(ctx, provider, fee)
	if errors.Is(err, fault.ErrInsufficientFunds) {
		b, berr := t.l.Preapprovals().unlockedAt(ctx, t, provider)
		if berr != nil {
			return berr
		}
		return operatorCannotPay(fee.Sub(b))
	}
	if err != nil {
		return err
	}
	t.record(provider, HistoryBalanceChange, subtype, receiver, r.Cost(coin.Zero).Neg(), fee.Add(r.HoldingFees), "", HistoryDetails{HoldingFees: r.HoldingFees, Fees: fee})
	// As splitAndBurn does on the real network, the burn earns the payer a
	// validator reward coupon.
	t.addRewardCoupon(RewardValidator, provider, fee, false)
	return nil
}

func (pa Preapprovals) unlockedAt(ctx context.Context, t *txn, party coin.PartyID) (coin.Amount, error) {
	hs, err := store.HoldingsByOwner(ctx, t.tx, party)
	if err != nil {
		return coin.Zero, err
	}
	sum := coin.Zero
	for _, h := range hs {
		if h.LockHolder == "" {
			sum = sum.Add(EffectiveAmount(h.Amount, h.Rate, h.CreatedRound, t.round.Number))
		}
	}
	return sum, nil
}

// createPreapprovalContract creates the contract and its row inside t.
func (t *txn) createPreapprovalContract(ctx context.Context, receiver, provider coin.PartyID, validFrom, expires time.Time) (coin.ContractID, error) {
	cid := t.create(TemplateTransferPreapproval, preapprovalPayload{
		DSO: t.l.dso, Receiver: receiver, Provider: provider, ValidFrom: FormatTime(validFrom),
		LastRenewedAt: FormatTime(t.now), ExpiresAt: FormatTime(expires),
	}, receiver, provider, t.l.dso)
	err := store.InsertTransferPreapproval(ctx, t.tx, &store.TransferPreapproval{
		ContractID: cid, Receiver: receiver, Provider: provider, ValidFrom: validFrom, LastRenewedAt: t.now, ExpiresAt: expires,
	})
	return cid, err
}

// preapprovalCreationKey is the in-flight lock of a preapproval's creation
// for receiver.
func preapprovalCreationKey(receiver coin.PartyID) string {
	return "cmd:preapproval:" + string(receiver)
}

// Create gives receiver a transfer preapproval provided by the
// validator operator, who pays its fee (PreapprovalLifetime's worth). When
// receiver has a valid one already it returns that one with exists set;
// while another creation for receiver is in flight it fails with
// fault.ErrInFlight.
func (pa Preapprovals) Create(ctx context.Context, receiver coin.PartyID) (cid coin.ContractID, exists bool, err error) {
	l := pa.l
	// A valid (live, unexpired) one is answered as it is.
	if p, err := store.LiveTransferPreapproval(ctx, l.db, receiver); err == nil && l.Now().Before(p.ExpiresAt) {
		return p.ContractID, true, nil
	} else if err != nil && !errors.Is(err, fault.ErrNotFound) {
		return "", false, err
	}
	provider := l.operator
	if err := pa.FundProvider(ctx, provider, PreapprovalLifetime); err != nil {
		return "", false, fmt.Errorf("create transfer preapproval for %s: %w", receiver, err)
	}
	err = l.change(ctx, func(ctx context.Context, c *change) error {
		tx := c.tx
		exists = false
		// A second request for the same receiver while this one runs is
		// told so (429, as the spec says) rather than queued behind it.
		ok, err := l.db.TryLockKey(ctx, tx, preapprovalCreationKey(receiver))
		if err != nil {
			return err
		}
		if !ok {
			return fmt.Errorf("%w: a transfer preapproval for this party is being created", fault.ErrInFlight)
		}
		if err := l.LockParties(ctx, tx, receiver, provider); err != nil {
			return err
		}
		t, err := c.begin(ctx, "create-transfer-preapproval")
		if err != nil {
			return err
		}
		if cid, exists, err = t.newPreapproval(ctx, receiver, provider, t.now.Add(PreapprovalLifetime)); exists {
			// A valid one is there: nothing to change.
			c.drop()
		}
		return err
	})
	if err != nil {
		return "", false, fmt.Errorf("create transfer preapproval for %s: %w", receiver, err)
	}
	return cid, exists, nil
}

// newPreapproval is the one rule creating a preapproval inside t: when
// receiver has a valid one it returns it with exists set and changes
// nothing; otherwise an expired one is archived, provider pays the fee up
// to expires and the new contract is created. Callers lock receiver and
// provider.
func (t *txn) newPreapproval(ctx context.Context, receiver, provider coin.PartyID, expires time.Time) (coin.ContractID, bool, error) {
	live, err := store.LiveTransferPreapproval(ctx, t.tx, receiver)
	switch {
	case err == nil && t.now.Before(live.ExpiresAt):
		return live.ContractID, true, nil
	case err == nil:
		// An expired one is archived (the DSO's expiry trigger).
		t.archive(live.ContractID)
		if err := store.ArchiveTransferPreapproval(ctx, t.tx, live.ContractID, t.now); err != nil {
			return "", false, err
		}
	case !errors.Is(err, store.ErrNotFound):
		return "", false, err
	}
	if !expires.After(t.now) {
		return "", false, fmt.Errorf("%w: the preapproval would expire at %s, in the past", fault.ErrExpired, FormatTime(expires))
	}
	if err := t.chargePreapproval(ctx, provider, receiver, expires.Sub(t.now), "TransferPreapprovalCreation"); err != nil {
		return "", false, err
	}
	cid, err := t.createPreapprovalContract(ctx, receiver, provider, t.now, expires)
	if err == nil && receiver != provider {
		// The receiver asked for it; the provider's row is the fee.
		t.record(receiver, HistoryNotification, "TransferPreapprovalCreation", provider, coin.Zero, coin.Zero, "", HistoryDetails{
			ContractID: cid, Notification: "transfer preapproval created, valid until " + FormatTime(expires),
		})
	}
	return cid, false, err
}

// Renew extends a live, unexpired preapproval by
// PreapprovalLifetime from its current expiry; its provider pays the fee.
// An expired one is never renewed (fault.ErrExpired).
func (pa Preapprovals) Renew(ctx context.Context, cid coin.ContractID) (coin.ContractID, error) {
	return pa.renew(ctx, cid, "", time.Time{}, commands.Command{})
}

// RenewAs is TransferPreapproval_Renew by actor, the preapproval's
// provider (the Ledger API's choice): the preapproval is extended to
// until, the provider paying the fee for the extension, once per cmd's
// key.
func (pa Preapprovals) RenewAs(ctx context.Context, actor coin.PartyID, cid coin.ContractID, until time.Time, cmd commands.Command) (coin.ContractID, error) {
	return pa.renew(ctx, cid, actor, until, cmd)
}

// renew is the one rule renewing a preapproval: to until (zero:
// its expiry plus PreapprovalLifetime), which must be after its current
// expiry, the provider paying the fee for the extension. A non-empty actor
// must be the provider (TransferPreapproval_Renew's controller); a
// command with a key deduplicates it.
func (pa Preapprovals) renew(ctx context.Context, cid coin.ContractID, actor coin.PartyID, until time.Time, cmd commands.Command) (coin.ContractID, error) {
	l := pa.l
	p, err := store.TransferPreapprovalByID(ctx, l.db, cid)
	if err != nil {
		return "", err
	}
	if actor != "" && actor != p.Provider {
		return "", fmt.Errorf("%w: only the provider %s renews transfer preapproval %s, not %s", fault.ErrForbidden, p.Provider, cid, actor)
	}
	if until.IsZero() {
		until = p.ExpiresAt.Add(PreapprovalLifetime)
	}
	if !until.After(p.ExpiresAt) {
		return "", fault.Invalid("newExpiresAt", "%s is not after the preapproval's expiry %s", FormatTime(until), FormatTime(p.ExpiresAt))
	}
	if err := pa.FundProvider(ctx, p.Provider, until.Sub(p.ExpiresAt)); err != nil {
		return "", fmt.Errorf("renew transfer preapproval %s: %w", cid, err)
	}
	var renewed coin.ContractID
	err = l.change(ctx, func(ctx context.Context, c *change) error {
		tx := c.tx
		if err := l.claimOnce(ctx, tx, cmd.Key); err != nil {
			return err
		}
		if err := l.LockParties(ctx, tx, p.Receiver, p.Provider); err != nil {
			return err
		}
		p, err := store.TransferPreapprovalByID(ctx, tx, cid)
		if err != nil {
			return err
		}
		if !p.ArchivedAt.IsZero() {
			return fmt.Errorf("%w: transfer preapproval %s is archived", fault.ErrConflict, cid)
		}
		t, err := c.begin(ctx, "renew-transfer-preapproval")
		if err != nil {
			return err
		}
		if !t.now.Before(p.ExpiresAt) {
			return fmt.Errorf("%w: transfer preapproval %s expired at %s", fault.ErrExpired, cid, FormatTime(p.ExpiresAt))
		}
		if err := t.chargePreapproval(ctx, p.Provider, p.Receiver, until.Sub(p.ExpiresAt), "TransferPreapprovalRenewal"); err != nil {
			return err
		}
		t.archive(cid)
		if err := store.ArchiveTransferPreapproval(ctx, tx, cid, t.now); err != nil {
			return err
		}
		renewed, err = t.createPreapprovalContract(ctx, p.Receiver, p.Provider, p.ValidFrom, until)
		if err == nil && cmd.Key != "" {
			t.afterCommit(func(ctx context.Context) error {
				return l.saveCommand(ctx, t, cmd, p.Provider, "renew-transfer-preapproval", string(renewed))
			})
		}
		return err
	})
	if err != nil {
		return "", fmt.Errorf("renew transfer preapproval %s: %w", cid, err)
	}
	return renewed, nil
}

// Cancel archives receiver's live preapproval (the validator
// admin's cancelTransferPreapprovalByParty).
func (pa Preapprovals) Cancel(ctx context.Context, receiver coin.PartyID) error {
	return pa.cancel(ctx, receiver, "", "", commands.Command{})
}

// CancelAs is TransferPreapproval_Cancel by actor, the preapproval's
// receiver or provider (the Ledger API's choice), once per cmd's key.
func (pa Preapprovals) CancelAs(ctx context.Context, actor coin.PartyID, cid coin.ContractID, cmd commands.Command) error {
	p, err := store.TransferPreapprovalByID(ctx, pa.l.db, cid)
	if errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("%w: transfer preapproval %s", fault.ErrNotFound, cid)
	} else if err != nil {
		return err
	}
	return pa.cancel(ctx, p.Receiver, cid, actor, cmd)
}

// cancel is the one rule cancelling receiver's live
// preapproval. A non-empty cid must be that preapproval and actor its
// receiver or provider (TransferPreapproval_Cancel); a command with a key
// deduplicates it.
func (pa Preapprovals) cancel(ctx context.Context, receiver coin.PartyID, cid coin.ContractID, actor coin.PartyID, cmd commands.Command) error {
	l := pa.l
	err := l.change(ctx, func(ctx context.Context, c *change) error {
		tx := c.tx
		if err := l.claimOnce(ctx, tx, cmd.Key); err != nil {
			return err
		}
		p, err := store.LiveTransferPreapproval(ctx, tx, receiver)
		if errors.Is(err, store.ErrNotFound) || err == nil && cid != "" && p.ContractID != cid {
			return problem(fault.ErrNotFound, "there is no preapproval to revoke: it expired or was revoked already")
		}
		if err != nil {
			return err
		}
		if actor != "" && actor != p.Receiver && actor != p.Provider {
			return fmt.Errorf("%w: only the receiver or the provider cancels transfer preapproval %s, not %s", fault.ErrForbidden, p.ContractID, actor)
		}
		t, err := c.begin(ctx, "cancel-transfer-preapproval")
		if err != nil {
			return err
		}
		t.archive(p.ContractID)
		if err := store.ArchiveTransferPreapproval(ctx, tx, p.ContractID, t.now); err != nil {
			return err
		}
		// The provider (the operator, whose admin cancels) and the
		// receiver both see it.
		d := HistoryDetails{ContractID: p.ContractID, Notification: "transfer preapproval cancelled"}
		if p.Provider == receiver {
			t.record(receiver, HistoryNotification, "TransferPreapprovalCancelled", receiver, coin.Zero, coin.Zero, "", d)
		} else {
			t.recordPair(p.Provider, receiver, HistoryNotification, "TransferPreapprovalCancelled", coin.Zero, coin.Zero, coin.Zero, coin.Zero, "", d)
		}
		if cmd.Key != "" {
			t.afterCommit(func(ctx context.Context) error {
				return l.saveCommand(ctx, t, cmd, actor, "cancel-transfer-preapproval", string(p.ContractID))
			})
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("cancel transfer preapproval of %s: %w", receiver, err)
	}
	return nil
}

// PreapprovalSend is a one-step transfer to a receiver with a preapproval.
type PreapprovalSend struct {
	Sender          coin.PartyID
	Receiver        coin.PartyID
	Amount          coin.Amount
	DeduplicationID string
	Description     string
	// Completion is the Ledger API's completion of the command the send
	// runs for (commands.Completing), written with its success; nil
	// elsewhere.
	Completion *commands.Completion
}

// Send transfers in one step to a receiver with a valid
// preapproval (TransferPreapproval_Send). The deduplication id allows one
// success per id per sender within commands.DeduplicationWindow; a replay
// fails with fault.ErrDuplicate. When the preapproval's provider is a
// featured app provider, the transfer earns it an app reward coupon, as on
// the real network.
func (pa Preapprovals) Send(ctx context.Context, s PreapprovalSend) (*TransferResult, error) {
	l := pa.l
	s.DeduplicationID = strings.TrimSpace(s.DeduplicationID)
	if s.DeduplicationID == "" {
		return nil, fault.Invalid("deduplication_id", "must not be empty")
	}
	if err := bounds.CheckID("deduplication_id", s.DeduplicationID); err != nil {
		return nil, err
	}
	if err := bounds.CheckAmount("amount", s.Amount); err != nil {
		return nil, err
	}
	if err := bounds.CheckText("description", s.Description); err != nil {
		return nil, err
	}
	if err := l.Reassignments().refuseSend(ctx, s.Receiver); err != nil {
		return nil, fmt.Errorf("send %s to %s by preapproval: %w", s.Amount, s.Receiver, err)
	}
	c := &sendCall{ctx: ctx, s: s, cmd: commands.Command{Key: "preapproval-send:" + string(s.Sender) + ":" + s.DeduplicationID, Completion: s.Completion}}
	r := l.sends.sendOne(l, c)
	if r.err != nil {
		return nil, fmt.Errorf("send %s to %s by preapproval: %w", s.Amount, s.Receiver, r.err)
	}
	return r.res, nil
}

// sendPreapprovedCommand is the rule of one send of Preapprovals().Send, from
// what its batch read for it (rd, under the sender's lock, after its key
// was claimed and t given its offset) to what it writes (t): a pure
// function of both, the same on either engine. The inputs' spend rides
// the batch's write.
func (t *changes) sendPreapprovedCommand(c *sendCall, rd *store.PreapprovalSendReads) (*TransferResult, error) {
	s := c.s
	if !rd.CommandAt.IsZero() {
		if t.now.Sub(rd.CommandAt) < commands.DeduplicationWindow*time.Second {
			return nil, fmt.Errorf("%w: deduplication id %q was used at %s", fault.ErrDuplicate, s.DeduplicationID, FormatTime(rd.CommandAt))
		}
		// The old record goes in the write batch, before the new one.
		t.forget = append(t.forget, c.cmd.Key)
	}
	p := rd.Preapproval
	if p == nil || !t.now.Before(p.ExpiresAt) {
		if c.token {
			return nil, errNoPreapproval
		}
		return nil, fault.Invalid("receiver_party_id", "%s has no valid transfer preapproval", s.Receiver)
	}
	r, err := t.transferFrom(rd.Holdings, s.Sender, []Output{{Receiver: p.Receiver, Amount: s.Amount}})
	if err != nil {
		return nil, err
	}
	t.preapprovedSent(s.Sender, p, rd.Featured, s.Amount, r, s.Description)
	kind := "transfer-preapproval-send"
	if c.token {
		kind = "create-transfer-instruction"
	}
	t.recordCommand(c.cmd, s.Sender, kind)
	return r, nil
}

// Valid returns receiver's valid preapproval row; none (or an
// expired one) is a validation error on receiver_party_id.
func (pa Preapprovals) Valid(ctx context.Context, db bun.IDB, receiver coin.PartyID) (*store.TransferPreapproval, error) {
	l := pa.l
	p, err := store.LiveTransferPreapproval(ctx, db, receiver)
	if errors.Is(err, store.ErrNotFound) || (err == nil && !l.Now().Before(p.ExpiresAt)) {
		return nil, fault.Invalid("receiver_party_id", "%s has no valid transfer preapproval", receiver)
	}
	return p, err
}

// sendPreapproved is the one rule of TransferPreapproval_Send inside t:
// the transfer through receiver's valid preapproval, its history, and the
// featured app reward coupon of the preapproval's provider. Callers lock
// sender.
func (t *txn) sendPreapproved(ctx context.Context, sender, receiver coin.PartyID, amount coin.Amount, description string) (*TransferResult, error) {
	p, err := t.l.Preapprovals().Valid(ctx, t.tx, receiver)
	if err != nil {
		return nil, err
	}
	return t.sendThrough(ctx, sender, p, amount, description)
}

// sendThrough is sendPreapproved once the receiver's valid preapproval p
// is known.
func (t *txn) sendThrough(ctx context.Context, sender coin.PartyID, p *store.TransferPreapproval, amount coin.Amount, description string) (*TransferResult, error) {
	if err := t.usingRules(ctx, p.ContractID); err != nil {
		return nil, err
	}
	featured, err := IsFeatured(ctx, t.tx, p.Provider)
	if err != nil {
		return nil, err
	}
	return t.sendPreapprovedTo(ctx, sender, p, featured, amount, description)
}

// sendPreapprovedTo is sendPreapproved once the receiver's valid
// preapproval p and whether its provider is featured are known.
func (t *txn) sendPreapprovedTo(ctx context.Context, sender coin.PartyID, p *store.TransferPreapproval, featured bool, amount coin.Amount, description string) (*TransferResult, error) {
	r, err := t.transfer(ctx, sender, []Output{{Receiver: p.Receiver, Amount: amount}})
	if err != nil {
		return nil, err
	}
	t.preapprovedSent(sender, p, featured, amount, r, description)
	return r, nil
}

// preapprovedSent is what a TransferPreapproval_Send writes besides the
// transfer r itself: its history and, when the preapproval's provider is
// featured, the provider's app reward coupon.
func (t *changes) preapprovedSent(sender coin.PartyID, p *store.TransferPreapproval, featured bool, amount coin.Amount, r *TransferResult, description string) {
	t.recordTransfer(sender, p.Receiver, amount, r, "TransferPreapprovalSend", description)
	if featured {
		reward := USDToCoin(t.l.rules.ExtraFeaturedAppRewardUSD, t.round.Price)
		t.addRewardCoupon(RewardApp, p.Provider, reward, true)
	}
}

// IsFeatured reports whether provider holds a FeaturedAppRight, which
// earns it an app reward for each send through its preapprovals.
func IsFeatured(ctx context.Context, db bun.IDB, provider coin.PartyID) (bool, error) {
	rights, err := store.ActiveContractsByTemplate(ctx, db, TemplateFeaturedAppRight, provider)
	return len(rights) > 0, err
}
