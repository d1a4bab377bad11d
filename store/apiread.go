package store

import (
	"context"
	"fmt"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/uptrace/bun"
)

// The reads of the JSON Ledger API: contracts and unlocked holdings as of
// an offset, and the contract events of a range of offsets. A contract
// lives in contracts (created_offset, archived_offset); an unlocked
// holding in holdings while live and in spent_holdings once spent.

// ContractQuery selects contracts for the Ledger API.
type ContractQuery struct {
	// Parties keeps contracts with any of them as a stakeholder; nil keeps
	// every contract.
	Parties []coin.PartyID
	// Templates keeps contracts of these templates; nil keeps every one.
	Templates []string
	// After and Upto bound offsets: (After, Upto].
	After, Upto int64
	Limit       int
}

// stakeholderWhere keeps rows whose stakeholders include one of parties.
func stakeholderWhere(q *bun.SelectQuery, parties []coin.PartyID) *bun.SelectQuery {
	if parties == nil {
		return q
	}
	return q.WhereGroup(" AND ", func(q *bun.SelectQuery) *bun.SelectQuery {
		if len(parties) == 0 {
			return q.Where("1 = 0")
		}
		for _, p := range parties {
			q = q.WhereOr(stakeholderIs(q, "stakeholders", p))
		}
		return q
	})
}

func templateWhere(q *bun.SelectQuery, templates []string) *bun.SelectQuery {
	if templates == nil {
		return q
	}
	if len(templates) == 0 {
		return q.Where("1 = 0")
	}
	return q.Where("template_id IN (?)", bun.List(templates))
}

// ActiveContractsAt lists the contracts active at offset q.Upto (created
// at or before it, not archived by then), oldest first, at most q.Limit.
func ActiveContractsAt(ctx context.Context, db bun.IDB, q ContractQuery) ([]Contract, error) {
	return ActiveContractsAfter(ctx, db, q, FirstContractKey)
}

func activeContractsQuery(db bun.IDB, q ContractQuery) *bun.SelectQuery {
	sel := db.NewSelect().Model((*Contract)(nil)).Where("created_offset <= ?", q.Upto).
		Where("(archived_offset IS NULL OR archived_offset > ?)", q.Upto)
	return templateWhere(stakeholderWhere(sel, q.Parties), q.Templates).Order("created_offset", "contract_id").Limit(int64(q.Limit))
}

// HoldingRow is an unlocked holding, live or spent, with the offset that
// spent it (0 while live).
type HoldingRow struct {
	Holding
	SpentOffset int64
}

// unlockedHoldings selects unlocked holdings, live (from holdings,
// where live holds) and spent (from spent_holdings, where spent holds),
// of owners (nil: every owner). Each side has its own condition, so that
// each can use its table's indexes (holdings by owner, spent_holdings by
// spent_offset): spent_holdings only grows. spent_holdings does not keep
// a holding's creation time: it is its creating update's record time or,
// once that update is pruned, the opening of the round it was created in.
func unlockedHoldings(db bun.IDB, live, spent string, liveArgs, spentArgs []any, owners []coin.PartyID, tail string) *bun.RawQuery {
	ownerLive, ownerSpent, oargs := "", "", []any{}
	if owners != nil {
		ownerLive, ownerSpent, oargs = " AND owner IN (?)", " AND s.owner IN (?)", []any{bun.List(owners)}
		if len(owners) == 0 {
			ownerLive, ownerSpent, oargs = " AND 1 = 0", " AND 1 = 0", nil
		}
	}
	args := append(append(append(append([]any{}, liveArgs...), oargs...), spentArgs...), oargs...)
	return db.NewRaw(`SELECT * FROM (
	SELECT contract_id, owner, amount, created_round, rate, created_offset, created_at, 0 AS spent_offset
	FROM holdings WHERE lock_holder IS NULL AND (`+live+`)`+ownerLive+`
	UNION ALL
	SELECT s.contract_id, s.owner, s.amount, s.created_round, s.rate, s.created_offset,
		COALESCE(u.record_time, r.opens_at) AS created_at, s.spent_offset
	FROM spent_holdings AS s LEFT JOIN updates AS u ON u.offset_id = s.created_offset
	LEFT JOIN rounds AS r ON r.number = s.created_round
	WHERE (`+spent+`)`+ownerSpent+`) AS h `+tail, args...)
}

func scanHoldingRows(ctx context.Context, q *bun.RawQuery) ([]HoldingRow, error) {
	var rows []struct {
		ContractID    coin.ContractID `bun:"contract_id"`
		Owner         coin.PartyID    `bun:"owner"`
		Amount        coin.Amount     `bun:"amount,type:text"`
		CreatedRound  coin.Round      `bun:"created_round"`
		Rate          coin.Amount     `bun:"rate,type:text"`
		CreatedOffset int64           `bun:"created_offset"`
		CreatedAt     bun.NullTime    `bun:"created_at"`
		SpentOffset   int64           `bun:"spent_offset"`
	}
	if err := q.Scan(ctx, &rows); err != nil {
		return nil, fmt.Errorf("unlocked holdings: %w", Normalize(err))
	}
	out := make([]HoldingRow, len(rows))
	for i, r := range rows {
		out[i] = HoldingRow{Holding: Holding{ContractID: r.ContractID, Owner: r.Owner, Amount: r.Amount, CreatedRound: r.CreatedRound,
			Rate: r.Rate, CreatedOffset: r.CreatedOffset, CreatedAt: r.CreatedAt.Time}, SpentOffset: r.SpentOffset}
	}
	return out, nil
}

// The conditions of the Ledger API's holding reads; a holding spent after
// an offset was created before its spend, so every spent holding these
// select has spent_offset above the range's start, which the index on
// spent_offset finds.
const (
	holdingsLiveAt         = "created_offset <= ?"
	holdingsSpentAt        = "s.spent_offset > ? AND s.created_offset <= ?"
	holdingsCreatedIn      = "created_offset > ? AND created_offset <= ?"
	holdingsSpentChangedIn = "s.spent_offset > ? AND s.created_offset <= ? AND (s.created_offset > ? OR s.spent_offset <= ?)"
)

// UnlockedHoldingsAt lists the unlocked holdings of owners (nil: every
// owner) live at offset upto, oldest first, at most limit.
func UnlockedHoldingsAt(ctx context.Context, db bun.IDB, owners []coin.PartyID, upto int64, limit int) ([]HoldingRow, error) {
	return UnlockedHoldingsAfter(ctx, db, owners, upto, FirstContractKey, limit)
}

// UnlockedHoldingsChanged lists the unlocked holdings of owners (nil:
// every owner) created or spent in (after, upto].
func UnlockedHoldingsChanged(ctx context.Context, db bun.IDB, owners []coin.PartyID, after, upto int64) ([]HoldingRow, error) {
	q := unlockedHoldings(db, holdingsCreatedIn, holdingsSpentChangedIn, []any{after, upto}, []any{after, upto, after, upto}, owners, "")
	return scanHoldingRows(ctx, q)
}

// UnlockedHoldingByID finds an unlocked holding, live or spent.
func UnlockedHoldingByID(ctx context.Context, db bun.IDB, id coin.ContractID) (*HoldingRow, error) {
	hs, err := scanHoldingRows(ctx, unlockedHoldings(db, "contract_id = ?", "s.contract_id = ?", []any{id}, []any{id}, nil, ""))
	if err != nil {
		return nil, err
	}
	if len(hs) == 0 {
		return nil, fmt.Errorf("holding %s: %w", id, ErrNotFound)
	}
	return &hs[0], nil
}

// ContractsChanged lists the contracts created or archived in
// (q.After, q.Upto] for q.Parties and q.Templates.
func ContractsChanged(ctx context.Context, db bun.IDB, q ContractQuery) ([]Contract, error) {
	var cs []Contract
	sel := db.NewSelect().Model(&cs).WhereGroup(" AND ", func(s *bun.SelectQuery) *bun.SelectQuery {
		return s.Where("created_offset > ? AND created_offset <= ?", q.After, q.Upto).
			WhereOr("archived_offset > ? AND archived_offset <= ?", q.After, q.Upto)
	})
	sel = templateWhere(stakeholderWhere(sel, q.Parties), q.Templates)
	if err := sel.Order("created_offset", "contract_id").Scan(ctx); err != nil {
		return nil, fmt.Errorf("contracts changed: %w", Normalize(err))
	}
	return cs, nil
}

// EventOffsets lists, oldest first and at most q.Limit, the offsets in
// (q.After, q.Upto] at which a contract of q (or, with holdings, an
// unlocked holding of owners) was created or archived, and those of the
// commands a party of q.Parties acted in (actedOffsets).
func EventOffsets(ctx context.Context, db bun.IDB, q ContractQuery, holdings bool, owners []coin.PartyID) ([]int64, error) {
	var offsets []int64
	union := eventUnion(db, q, holdings, owners)
	if len(q.Parties) > 0 {
		union = union.Union(actedOffsets(db, q, holdings))
	}
	err := db.NewSelect().TableExpr("(?) AS x", union).ColumnExpr("o").Order("o").Limit(int64(q.Limit)).Scan(ctx, &offsets)
	if err != nil {
		return nil, fmt.Errorf("event offsets: %w", Normalize(err))
	}
	return offsets, nil
}

// eventUnion selects (as o) the offsets in (q.After, q.Upto] at which a
// contract of q (or, with holdings, an unlocked holding of owners; nil
// for every owner) was created or archived.
func eventUnion(db bun.IDB, q ContractQuery, holdings bool, owners []coin.PartyID) *bun.SelectQuery {
	created := db.NewSelect().Table("contracts").ColumnExpr("created_offset AS o").Where("created_offset > ? AND created_offset <= ?", q.After, q.Upto)
	archived := db.NewSelect().Table("contracts").ColumnExpr("archived_offset AS o").Where("archived_offset > ? AND archived_offset <= ?", q.After, q.Upto)
	created = templateWhere(stakeholderWhere(created, q.Parties), q.Templates)
	archived = templateWhere(stakeholderWhere(archived, q.Parties), q.Templates)
	union := created.Union(archived)
	if holdings {
		owned := func(q *bun.SelectQuery, col string) *bun.SelectQuery {
			if owners == nil {
				return q
			}
			if len(owners) == 0 {
				return q.Where("1 = 0")
			}
			return q.Where(col+" IN (?)", bun.List(owners))
		}
		live := db.NewSelect().Table("holdings").ColumnExpr("created_offset AS o").Where("lock_holder IS NULL").
			Where("created_offset > ? AND created_offset <= ?", q.After, q.Upto)
		// Both events of a spent holding in the range have spent_offset > q.After.
		spentCreated := db.NewSelect().Table("spent_holdings").ColumnExpr("created_offset AS o").
			Where("spent_offset > ? AND created_offset > ? AND created_offset <= ?", q.After, q.After, q.Upto)
		spent := db.NewSelect().Table("spent_holdings").ColumnExpr("spent_offset AS o").Where("spent_offset > ? AND spent_offset <= ?", q.After, q.Upto)
		union = union.Union(owned(live, "owner")).Union(owned(spentCreated, "owner")).Union(owned(spent, "owner"))
	}
	return union
}

// actedOffsets selects (as o) the offsets in (q.After, q.Upto] of the
// commands submitted here whose root exercise a party of q.Parties acted
// in (the completion's act_as, the exercise's acting parties): in Canton
// the acting parties are informees of the exercise and so of everything
// under it, stakeholders of it or not (an operator's merge of an owner's
// holdings by delegation). With q.Templates, only those at which a
// contract of the templates (or, with holdings, an unlocked holding)
// changed, whoever its stakeholders.
func actedOffsets(db bun.IDB, q ContractQuery, holdings bool) *bun.SelectQuery {
	acted := db.NewSelect().Table("completions").ColumnExpr("offset_id AS o").
		Where("offset_id > ? AND offset_id <= ?", q.After, q.Upto).Where("status_code = 0").Where("exercise <> ''").
		WhereGroup(" AND ", func(s *bun.SelectQuery) *bun.SelectQuery {
			for _, p := range q.Parties {
				s = s.WhereOr(containsSQL(db, "(',' || act_as || ',')"), ","+string(p)+",")
			}
			return s
		})
	if q.Templates != nil {
		all := q
		all.Parties = nil
		acted = acted.Where("offset_id IN (SELECT o FROM (?) AS y)", eventUnion(db, all, holdings, nil))
	}
	return acted
}

// UpdatesAt loads the update-log rows at offsets.
func UpdatesAt(ctx context.Context, db bun.IDB, offsets []int64) ([]Update, error) {
	var us []Update
	if len(offsets) == 0 {
		return nil, nil
	}
	if err := db.NewSelect().Model(&us).Where("offset_id IN (?)", bun.List(offsets)).Order("offset_id").Scan(ctx); err != nil {
		return nil, fmt.Errorf("updates: %w", Normalize(err))
	}
	return us, nil
}

// UpdateByID loads an update-log row by its update id.
func UpdateByID(ctx context.Context, db bun.IDB, id string) (*Update, error) {
	u := new(Update)
	if err := db.NewSelect().Model(u).Where("update_id = ?", id).Limit(1).Scan(ctx); err != nil {
		return nil, fmt.Errorf("update %s: %w", id, Normalize(err))
	}
	return u, nil
}

// LedgerEnd is the offset of the latest update (0 on an empty log).
func LedgerEnd(ctx context.Context, db bun.IDB) (int64, error) {
	var end int64
	if err := db.NewSelect().Table("updates").ColumnExpr("COALESCE(MAX(offset_id), 0)").Scan(ctx, &end); err != nil {
		return 0, fmt.Errorf("ledger end: %w", Normalize(err))
	}
	return end, nil
}

// PartiesAfter lists parties by ID after after, at most limit.
func PartiesAfter(ctx context.Context, db bun.IDB, after coin.PartyID, limit int) ([]Party, error) {
	var ps []Party
	if err := db.NewSelect().Model(&ps).Where("party_id > ?", after).Order("party_id").Limit(int64(limit)).Scan(ctx); err != nil {
		return nil, fmt.Errorf("parties: %w", Normalize(err))
	}
	return ps, nil
}
