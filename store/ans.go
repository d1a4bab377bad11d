package store

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/uptrace/bun"
)

// AnsName is a row of ans_names: a request for a name (its
// AnsEntryContext) and, once paid, its current AnsEntry.
type AnsName struct {
	bun.BaseModel `bun:"table:ans_names"`

	ContextCID   coin.ContractID `bun:"context_cid,pk"`
	ReferenceCID coin.ContractID `bun:"reference_cid"`
	Name         string          `bun:"name"`
	Owner        coin.PartyID    `bun:"owner"`
	URL          string          `bun:"url"`
	Description  string          `bun:"description"`
	EntryCID     coin.ContractID `bun:"entry_cid,nullzero"`
	ExpiresAt    bun.NullTime    `bun:"expires_at"`
	PaidAt       bun.NullTime    `bun:"paid_at"`
	CreatedAt    time.Time       `bun:"created_at"`
}

// InsertAnsName stores a new request for a name.
func InsertAnsName(ctx context.Context, db bun.IDB, n *AnsName) error {
	if _, err := db.NewInsert().Model(n).Exec(ctx); err != nil {
		return fmt.Errorf("insert name request %s: %w", n.ContextCID, Normalize(err))
	}
	return nil
}

// AnsNameByReference loads the request whose subscription request is ref.
func AnsNameByReference(ctx context.Context, db bun.IDB, ref coin.ContractID) (*AnsName, error) {
	n := new(AnsName)
	if err := db.NewSelect().Model(n).Where("reference_cid = ?", ref).Scan(ctx); err != nil {
		return nil, fmt.Errorf("name request for %s: %w", ref, Normalize(err))
	}
	return n, nil
}

// AnsEntryRowByName loads the row holding name's entry, expired or not.
func AnsEntryRowByName(ctx context.Context, db bun.IDB, name string) (*AnsName, error) {
	n := new(AnsName)
	if err := db.NewSelect().Model(n).Where("name = ?", name).Where("entry_cid IS NOT NULL").Scan(ctx); err != nil {
		return nil, fmt.Errorf("name %q: %w", name, Normalize(err))
	}
	return n, nil
}

// SetAnsEntry records the row's current entry (empty entry and zero
// expiry: it has none). It is guarded by the entry it replaces: if that is
// no longer the row's, nothing changes and ErrStale is returned.
func SetAnsEntry(ctx context.Context, db bun.IDB, contextCID, from, entry coin.ContractID, expires, paid time.Time) error {
	q := db.NewUpdate().Table("ans_names").Where("context_cid = ?", contextCID)
	if entry == "" {
		q = q.Set("entry_cid = NULL").Set("expires_at = NULL").Set("paid_at = NULL")
	} else {
		q = q.Set("entry_cid = ?", entry).Set("expires_at = ?", expires).Set("paid_at = ?", paid)
	}
	if from == "" {
		q = q.Where("entry_cid IS NULL")
	} else {
		q = q.Where("entry_cid = ?", from)
	}
	res, err := q.Exec(ctx)
	if err != nil {
		return fmt.Errorf("set entry of %s: %w", contextCID, Normalize(err))
	}
	if n, _ := res.RowsAffected(); n != 1 {
		return fmt.Errorf("entry of %s changed meanwhile: %w", contextCID, ErrStale)
	}
	return nil
}

// DeleteAnsName removes a request's row (its context was archived).
func DeleteAnsName(ctx context.Context, db bun.IDB, contextCID coin.ContractID) error {
	if _, err := db.NewDelete().Model((*AnsName)(nil)).Where("context_cid = ?", contextCID).Exec(ctx); err != nil {
		return fmt.Errorf("delete name request %s: %w", contextCID, Normalize(err))
	}
	return nil
}

// AnsQuery selects live entries (paid, expiring after Now).
type AnsQuery struct {
	Now time.Time
	// Name, when set, is the exact name.
	Name string
	// Prefix, when set, is the names' beginning.
	Prefix string
	// Owners, when set, are the entries' owners.
	Owners []coin.PartyID
	// Limit bounds the rows (0: no bound).
	Limit int
}

// LiveAnsEntries lists the entries q selects, oldest payment first, then
// by name.
func LiveAnsEntries(ctx context.Context, db bun.IDB, q AnsQuery) ([]AnsName, error) {
	var ns []AnsName
	s := db.NewSelect().Model(&ns).Where("entry_cid IS NOT NULL").Where("expires_at > ?", q.Now)
	if q.Name != "" {
		s = s.Where("name = ?", q.Name)
	}
	if q.Prefix != "" {
		s = s.Where(`name LIKE ? ESCAPE '\'`, likePrefix(q.Prefix))
	}
	if len(q.Owners) > 0 {
		s = s.Where("owner IN (?)", bun.List(q.Owners))
	}
	if q.Limit > 0 {
		s = s.Limit(int64(q.Limit))
	}
	if err := s.Order("paid_at", "name").Scan(ctx); err != nil {
		return nil, fmt.Errorf("names: %w", Normalize(err))
	}
	return ns, nil
}

// AnsNamesOf lists owner's rows, paid or not, by name.
func AnsNamesOf(ctx context.Context, db bun.IDB, owner coin.PartyID) ([]AnsName, error) {
	var ns []AnsName
	if err := db.NewSelect().Model(&ns).Where("owner = ?", owner).Order("name", "created_at").Scan(ctx); err != nil {
		return nil, fmt.Errorf("names of %s: %w", owner, Normalize(err))
	}
	return ns, nil
}

// ExpiredAnsEntries lists up to limit rows whose entry expired at or
// before now.
func ExpiredAnsEntries(ctx context.Context, db bun.IDB, now time.Time, limit int) ([]AnsName, error) {
	var ns []AnsName
	err := db.NewSelect().Model(&ns).Where("entry_cid IS NOT NULL").Where("expires_at <= ?", now).
		Order("expires_at").Limit(int64(limit)).Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("expired names: %w", Normalize(err))
	}
	return ns, nil
}

// likePrefix is the LIKE pattern of the names beginning with p: its
// wildcards ('_' is a name character) match only themselves.
func likePrefix(p string) string {
	return strings.NewReplacer(`\`, `\\`, "%", `\%`, "_", `\_`).Replace(p) + "%"
}
