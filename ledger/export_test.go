package ledger

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger/fault"
	"github.com/ccwallet/ccwallet/store"
)

// DropLockedHolding destroys a locked holding the way the DSO's expiry of
// a locked amulet would (burning it), leaving its lock holder behind: the
// "lock already gone" case of the registry.
func (l *Ledger) DropLockedHolding(ctx context.Context, cid coin.ContractID) error {
	return l.change(ctx, func(ctx context.Context, c *change) error {
		hs, err := store.HoldingsByIDs(ctx, c.tx, []coin.ContractID{cid})
		if err != nil || len(hs) != 1 {
			return fault.ErrNotFound
		}
		t, err := c.begin(ctx, "expire-locked-amulet")
		if err != nil {
			return err
		}
		if err := t.archiveHolding(ctx, hs[0]); err != nil {
			return err
		}
		t.burn(hs[0].Amount)
		return nil
	})
}

// HoldInstructionTrackingID holds the in-flight lock of sender's tracking
// id in an open transaction, as a concurrent request would, until release.
func (l *Ledger) HoldInstructionTrackingID(ctx context.Context, sender coin.PartyID, trackingID string) (release func(), err error) {
	tx, err := l.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	if _, err := l.claimCommand(ctx, tx, "token-transfer:"+string(sender)+":"+trackingID); err != nil {
		tx.Rollback()
		return nil, err
	}
	return func() { tx.Rollback() }, nil
}

// HoldPreapprovalCreation holds the in-flight lock of a preapproval's
// creation for receiver in an open transaction, as a concurrent request
// would, until release.
func (l *Ledger) HoldPreapprovalCreation(ctx context.Context, receiver coin.PartyID) (release func(), err error) {
	tx, err := l.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	if _, err := l.db.TryLockKey(ctx, tx, preapprovalCreationKey(receiver)); err != nil {
		tx.Rollback()
		return nil, err
	}
	return func() { tx.Rollback() }, nil
}

// MintLocked mints a holding locked until expires, for tests of lock
// expiry that must not depend on the transfer-instruction workflow.
func (l *Ledger) MintLocked(ctx context.Context, party coin.PartyID, amount coin.Amount, expires time.Time) (coin.ContractID, error) {
	var cid coin.ContractID
	err := l.change(ctx, func(ctx context.Context, c *change) error {
		t, err := c.begin(ctx, "mint")
		if err != nil {
			return err
		}
		t.minted = t.minted.Add(amount)
		cid = t.newHolding(party, amount, &Lock{Holder: string(l.dso), ExpiresAt: expires, Context: "test"})
		return nil
	})
	return cid, err
}

// SendsBatched is how many one-step sends ran in batches of two or more.
func SendsBatched(l *Ledger) int64 {
	l.sends.mu.Lock()
	defer l.sends.mu.Unlock()
	return l.sends.batched
}

// OnPostgres reports whether l runs on Postgres.
func OnPostgres(l *Ledger) bool { return l.db.Engine == store.Postgres }

// FailSendBatches makes every batch of l of more than one send fail before its
// writes (as a refusing database would) until the returned function is
// called; it counts the batches it failed.
func FailSendBatches(l *Ledger) (failed *atomic.Int64, restore func()) {
	failed = new(atomic.Int64)
	f := func(sends int) error {
		if sends > 1 {
			failed.Add(1)
			return errors.New("injected: the database refused the batch")
		}
		return nil
	}
	l.sends.fault.Store(&f)
	return failed, func() { l.sends.fault.Store(nil) }
}

// PanicSendBatches makes every batch of sends of l panic before its writes
// until the returned function is called.
func PanicSendBatches(l *Ledger) (restore func()) {
	f := func(int) error { panic("injected panic in a batch of sends") }
	l.sends.fault.Store(&f)
	return func() { l.sends.fault.Store(nil) }
}

// HoldSendBatches makes every batch of sends of l wait before its writes until
// the returned release is called; held receives once per batch that
// waits.
func HoldSendBatches(l *Ledger) (held <-chan int, release func()) {
	h := make(chan int, 16)
	gate := make(chan struct{})
	f := func(sends int) error {
		h <- sends
		<-gate
		return nil
	}
	l.sends.fault.Store(&f)
	var once sync.Once
	return h, func() {
		once.Do(func() {
			l.sends.fault.Store(nil)
			close(gate)
		})
	}
}

// SetSendGather sets how long a batch of l waits for more sends while
// another runs.
func SetSendGather(l *Ledger, d time.Duration) { l.sends.gather.Store(int64(d)) }

// SetSendGatherDetached sets how long a batch of l waits for more sends
// while another runs and every queued send is detached.
func SetSendGatherDetached(l *Ledger, d time.Duration) { l.sends.gatherDetached.Store(int64(d)) }

// QueuedSends is how many sends of l wait for a batch.
func QueuedSends(l *Ledger) int {
	l.sends.mu.Lock()
	defer l.sends.mu.Unlock()
	return len(l.sends.queue)
}

// SendGatherMin is how many queued sends end a batch's wait.
const SendGatherMin = sendGatherMin

// StoreOf is the ledger's database, for tests that check its rows.
func StoreOf(l *Ledger) *store.DB { return l.db }

// MintThen mints amount to party in one ledger change whose step after
// the commit is then: what its error or panic undoes is what tests see.
func (l *Ledger) MintThen(ctx context.Context, party coin.PartyID, amount coin.Amount, then func() error) (coin.ContractID, error) {
	var cid coin.ContractID
	err := l.change(ctx, func(ctx context.Context, c *change) error {
		t, err := c.begin(ctx, "mint")
		if err != nil {
			return err
		}
		cid = t.mint(party, amount)
		t.record(party, "balance_change", "Mint", "", amount, coin.Zero, "", HistoryDetails{ContractID: cid})
		t.afterCommit(func(context.Context) error { return then() })
		return nil
	})
	return cid, err
}

// ActiveContractsOf lists the active contracts of a template that party is
// a stakeholder of.
func (l *Ledger) ActiveContractsOf(ctx context.Context, templateID string, party coin.PartyID) ([]Contract, error) {
	cs, err := store.ActiveContractsByTemplate(ctx, l.db, templateID, party)
	if err != nil {
		return nil, err
	}
	out := make([]Contract, 0, len(cs))
	for i := range cs {
		out = append(out, l.ContractView(&cs[i]))
	}
	return out, nil
}

// FreshBlob is c's created-event blob made afresh: the kept ones are
// forgotten first.
func FreshBlob(l *Ledger, c *store.Contract) string {
	l.blobs.Clear()
	return l.blob(c)
}

// BlobV1 is c's created-event blob in the format issued before ccw2:
// "ccw1", the envelope with the payload, its MAC.
func BlobV1(l *Ledger, c *store.Contract) string {
	env, _ := json.Marshal(blobEnvelope{ContractID: c.ContractID, TemplateID: c.TemplateID, Payload: json.RawMessage(c.Payload),
		CreatedAt: FormatTime(c.CreatedAt), SynchronizerID: c.SynchronizerID})
	mac := hmac.New(sha256.New, l.blobKey)
	mac.Write(env)
	return base64.StdEncoding.EncodeToString(append(append(append([]byte(nil), blobMagicV1...), env...), mac.Sum(nil)...))
}
