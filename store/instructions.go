package store

import (
	"context"
	"fmt"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/uptrace/bun"
)

// TransferInstruction is a row of transfer_instructions.
type TransferInstruction struct {
	bun.BaseModel `bun:"table:transfer_instructions"`

	ContractID       coin.ContractID `bun:"contract_id,pk"`
	Sender           coin.PartyID    `bun:"sender"`
	Receiver         coin.PartyID    `bun:"receiver"`
	Amount           coin.Amount     `bun:"amount,type:text"`
	Description      string          `bun:"description"`
	LockedHoldingCID coin.ContractID `bun:"locked_holding_cid"`
	RequestedAt      time.Time       `bun:"requested_at"`
	ExecuteBefore    time.Time       `bun:"execute_before"`
	Status           string          `bun:"status"`
	TrackingID       string          `bun:"tracking_id"`
	ResultCIDs       string          `bun:"result_cids"`
	CreatedOffset    int64           `bun:"created_offset"`
	FinishedOffset   *int64          `bun:"finished_offset"`
	FinishedAt       bun.NullTime    `bun:"finished_at"`
}

// InsertTransferInstruction stores a new instruction.
func InsertTransferInstruction(ctx context.Context, db bun.IDB, ti *TransferInstruction) error {
	if _, err := db.NewInsert().Model(ti).Exec(ctx); err != nil {
		return fmt.Errorf("insert transfer instruction %s: %w", ti.ContractID, Normalize(err))
	}
	return nil
}

// TransferInstructionByID loads an instruction in any status.
func TransferInstructionByID(ctx context.Context, db bun.IDB, id coin.ContractID) (*TransferInstruction, error) {
	ti := new(TransferInstruction)
	if err := db.NewSelect().Model(ti).Where("contract_id = ?", id).Scan(ctx); err != nil {
		return nil, fmt.Errorf("transfer instruction %s: %w", id, Normalize(err))
	}
	return ti, nil
}

// FinishTransferInstruction moves an instruction from status from to to.
// It is guarded: if the instruction is no longer in from, nothing changes
// and ErrStale is returned.
func FinishTransferInstruction(ctx context.Context, db bun.IDB, id coin.ContractID, from, to, resultCIDs string, offset int64, at time.Time) error {
	res, err := db.NewUpdate().Table("transfer_instructions").
		Set("status = ?", to).Set("result_cids = ?", resultCIDs).Set("finished_offset = ?", offset).Set("finished_at = ?", at).
		Where("contract_id = ?", id).Where("status = ?", from).Exec(ctx)
	if err != nil {
		return fmt.Errorf("finish transfer instruction %s: %w", id, Normalize(err))
	}
	if n, _ := res.RowsAffected(); n != 1 {
		return fmt.Errorf("transfer instruction %s is no longer %s: %w", id, from, ErrStale)
	}
	return nil
}

// TransferInstructionsOf lists the instructions in status where party is
// sender or receiver, oldest first.
func TransferInstructionsOf(ctx context.Context, db bun.IDB, party coin.PartyID, status string) ([]TransferInstruction, error) {
	var tis []TransferInstruction
	err := db.NewSelect().Model(&tis).Where("status = ?", status).
		WhereGroup(" AND ", func(q *bun.SelectQuery) *bun.SelectQuery {
			return q.Where("sender = ?", party).WhereOr("receiver = ?", party)
		}).Order("created_offset").Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("transfer instructions of %s: %w", party, Normalize(err))
	}
	return tis, nil
}

// TransferInstructionsDue lists up to limit instructions in status whose
// deadline is at or before t.
func TransferInstructionsDue(ctx context.Context, db bun.IDB, status string, t time.Time, limit int) ([]TransferInstruction, error) {
	var tis []TransferInstruction
	err := db.NewSelect().Model(&tis).Where("status = ?", status).Where("execute_before <= ?", t).
		Order("execute_before", "contract_id").Limit(int64(limit)).Scan(ctx)
	if err != nil {
		return nil, fmt.Errorf("due transfer instructions: %w", Normalize(err))
	}
	return tis, nil
}

// Reassignment is a row of contract_reassignments: a contract on its way
// to another synchronizer.
type Reassignment struct {
	bun.BaseModel `bun:"table:contract_reassignments"`

	ContractID coin.ContractID `bun:"contract_id,pk"`
	Source     string          `bun:"source_synchronizer_id"`
	Target     string          `bun:"target_synchronizer_id"`
	StartedAt  time.Time       `bun:"started_at"`
}

// InsertReassignment starts a reassignment; ErrAlreadyExists if one runs.
func InsertReassignment(ctx context.Context, db bun.IDB, r *Reassignment) error {
	if _, err := db.NewInsert().Model(r).Exec(ctx); err != nil {
		return fmt.Errorf("start reassignment of %s: %w", r.ContractID, Normalize(err))
	}
	return nil
}

// DeleteReassignment ends a reassignment and returns it; ErrNotFound if
// none runs.
func DeleteReassignment(ctx context.Context, db bun.IDB, id coin.ContractID) (*Reassignment, error) {
	r := new(Reassignment)
	if err := db.NewSelect().Model(r).Where("contract_id = ?", id).Scan(ctx); err != nil {
		return nil, fmt.Errorf("reassignment of %s: %w", id, Normalize(err))
	}
	res, err := db.NewDelete().Table("contract_reassignments").Where("contract_id = ?", id).Exec(ctx)
	if err != nil {
		return nil, fmt.Errorf("end reassignment of %s: %w", id, Normalize(err))
	}
	if n, _ := res.RowsAffected(); n != 1 {
		return nil, fmt.Errorf("end reassignment of %s: %w", id, ErrStale)
	}
	return r, nil
}

// ReassignmentsOf returns the running reassignments among ids.
func ReassignmentsOf(ctx context.Context, db bun.IDB, ids []coin.ContractID) ([]Reassignment, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	var rs []Reassignment
	if err := db.NewSelect().Model(&rs).Where("contract_id IN (?)", bun.List(ids)).Order("contract_id").Scan(ctx); err != nil {
		return nil, fmt.Errorf("reassignments: %w", Normalize(err))
	}
	return rs, nil
}

// CountReassignments counts the running reassignments.
func CountReassignments(ctx context.Context, db bun.IDB) (int, error) {
	n, err := db.NewSelect().Table("contract_reassignments").Count(ctx)
	if err != nil {
		return 0, fmt.Errorf("count reassignments: %w", Normalize(err))
	}
	return int(n), nil
}

// SetContractSynchronizer records that a contract is now assigned to sync.
func SetContractSynchronizer(ctx context.Context, db bun.IDB, id coin.ContractID, sync string) error {
	res, err := db.NewUpdate().Table("contracts").Set("synchronizer_id = ?", sync).Where("contract_id = ?", id).Exec(ctx)
	if err != nil {
		return fmt.Errorf("assign %s: %w", id, Normalize(err))
	}
	if n, _ := res.RowsAffected(); n != 1 {
		return fmt.Errorf("assign %s: %w", id, ErrNotFound)
	}
	return nil
}

// MemberTraffic is a row of member_traffic: extra traffic a member bought.
type MemberTraffic struct {
	bun.BaseModel `bun:"table:member_traffic"`

	MemberID       string          `bun:"member_id,pk"`
	SynchronizerID string          `bun:"synchronizer_id,pk"`
	ContractID     coin.ContractID `bun:"contract_id"`
	TotalPurchased int64           `bun:"total_purchased"`
	NumPurchases   int64           `bun:"num_purchases"`
	CoinSpent      coin.Amount     `bun:"coin_spent,type:text"`
	USDSpent       coin.Amount     `bun:"usd_spent,type:text"`
}

// MemberTrafficOf loads a member's purchased traffic on a synchronizer.
func MemberTrafficOf(ctx context.Context, db bun.IDB, member, sync string) (*MemberTraffic, error) {
	m := new(MemberTraffic)
	if err := db.NewSelect().Model(m).Where("member_id = ?", member).Where("synchronizer_id = ?", sync).Scan(ctx); err != nil {
		return nil, fmt.Errorf("traffic of %s: %w", member, Normalize(err))
	}
	return m, nil
}

// SaveMemberTraffic inserts or rewrites a member's traffic row. prev is the
// contract the caller read (empty for a first purchase); the rewrite is
// guarded on it, so two purchases cannot both build on the same total.
func SaveMemberTraffic(ctx context.Context, db bun.IDB, m *MemberTraffic, prev coin.ContractID) error {
	if prev == "" {
		if _, err := db.NewInsert().Model(m).Exec(ctx); err != nil {
			return fmt.Errorf("insert traffic of %s: %w", m.MemberID, Normalize(err))
		}
		return nil
	}
	res, err := db.NewUpdate().Model(m).WherePK().Where("contract_id = ?", prev).Exec(ctx)
	if err != nil {
		return fmt.Errorf("update traffic of %s: %w", m.MemberID, Normalize(err))
	}
	if n, _ := res.RowsAffected(); n != 1 {
		return fmt.Errorf("update traffic of %s: %w", m.MemberID, ErrStale)
	}
	return nil
}

// ScanTrafficOf calls fn with the record time and traffic of every update
// submitted by submitter, oldest first.
func ScanTrafficOf(ctx context.Context, db bun.IDB, submitter string, fn func(at time.Time, bytes int64) error) error {
	var last int64
	for {
		var us []Update
		err := db.NewSelect().Model(&us).Column("offset_id", "record_time", "traffic_bytes").
			Where("submitter = ?", submitter).Where("offset_id > ?", last).Order("offset_id").Limit(5000).Scan(ctx)
		if err != nil {
			return fmt.Errorf("scan traffic of %s: %w", submitter, Normalize(err))
		}
		for _, u := range us {
			if err := fn(u.RecordTime, u.TrafficBytes); err != nil {
				return err
			}
		}
		if len(us) < 5000 {
			return nil
		}
		last = us[len(us)-1].OffsetID
	}
}
