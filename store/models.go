package store

import (
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/uptrace/bun"
)

// Party is a row of parties.
type Party struct {
	bun.BaseModel `bun:"table:parties"`

	PartyID   coin.PartyID `bun:"party_id,pk"`
	Hint      string       `bun:"hint"`
	Kind      string       `bun:"kind"`
	PublicKey string       `bun:"public_key,nullzero"`
	CreatedAt time.Time    `bun:"created_at"`
}

// User is a row of users: a wallet user bound to a party.
type User struct {
	bun.BaseModel `bun:"table:users"`

	Name         string          `bun:"name,pk"`
	PartyID      coin.PartyID    `bun:"party_id"`
	IsAdmin      bool            `bun:"is_admin"`
	InstallCID   coin.ContractID `bun:"install_cid,nullzero"`
	CreatedAt    time.Time       `bun:"created_at"`
	OffboardedAt bun.NullTime    `bun:"offboarded_at"`
}

// Update is a row of the update log.
type Update struct {
	bun.BaseModel `bun:"table:updates"`

	OffsetID     int64       `bun:"offset_id,pk,autoincrement"`
	UpdateID     string      `bun:"update_id"`
	Kind         string      `bun:"kind"`
	Submitter    string      `bun:"submitter"`
	Round        coin.Round  `bun:"round"`
	RecordTime   time.Time   `bun:"record_time"`
	Minted       coin.Amount `bun:"minted,type:text"`
	Burned       coin.Amount `bun:"burned,type:text"`
	TrafficBytes int64       `bun:"traffic_bytes"`
	// ActedBy is the admin who made the update acting as another party on
	// a development network, "" otherwise.
	ActedBy string `bun:"acted_by"`
}

// Contract is a row of contracts: any ledger object.
type Contract struct {
	bun.BaseModel `bun:"table:contracts"`

	ContractID     coin.ContractID `bun:"contract_id,pk"`
	TemplateID     string          `bun:"template_id"`
	Payload        string          `bun:"payload"`
	Stakeholders   string          `bun:"stakeholders"`
	SynchronizerID string          `bun:"synchronizer_id"`
	CreatedOffset  int64           `bun:"created_offset"`
	ArchivedOffset *int64          `bun:"archived_offset"`
	CreatedAt      time.Time       `bun:"created_at"`
}

// Holding is a live UTXO.
type Holding struct {
	bun.BaseModel `bun:"table:holdings"`

	ContractID    coin.ContractID `bun:"contract_id,pk"`
	Owner         coin.PartyID    `bun:"owner"`
	Amount        coin.Amount     `bun:"amount,type:text"`
	CreatedRound  coin.Round      `bun:"created_round"`
	Rate          coin.Amount     `bun:"rate,type:text"`
	LockHolder    string          `bun:"lock_holder,nullzero"`
	LockExpiresAt bun.NullTime    `bun:"lock_expires_at"`
	LockContext   string          `bun:"lock_context,nullzero"`
	// CreatedOffset and CreatedAt are the creating update's, which an
	// unlocked holding's contract (it has no contracts row) needs.
	CreatedOffset int64     `bun:"created_offset"`
	CreatedAt     time.Time `bun:"created_at"`
}

// SpentHolding is the record of an unlocked holding's archive: the
// holding as it was, and the offset of the update that spent it.
type SpentHolding struct {
	bun.BaseModel `bun:"table:spent_holdings"`

	ContractID    coin.ContractID `bun:"contract_id,pk"`
	Owner         coin.PartyID    `bun:"owner"`
	Amount        coin.Amount     `bun:"amount,type:text"`
	CreatedRound  coin.Round      `bun:"created_round"`
	Rate          coin.Amount     `bun:"rate,type:text"`
	CreatedOffset int64           `bun:"created_offset"`
	SpentOffset   int64           `bun:"spent_offset"`
}

// Round is a mining round.
type Round struct {
	bun.BaseModel `bun:"table:rounds"`

	Number         coin.Round      `bun:"number,pk"`
	ContractID     coin.ContractID `bun:"contract_id"`
	Price          coin.Amount     `bun:"price,type:text"`
	OpensAt        time.Time       `bun:"opens_at"`
	TargetClosesAt time.Time       `bun:"target_closes_at"`
	ClosedAt       bun.NullTime    `bun:"closed_at"`
}

// HistoryEntry is one row of wallet history: Party's view of a
// transaction and, when CounterAmount is set, also Counterparty's (one row
// serves both sides of a transfer).
type HistoryEntry struct {
	bun.BaseModel `bun:"table:history"`

	ID           int64        `bun:"id,pk,autoincrement"`
	OffsetID     int64        `bun:"offset_id"`
	Party        coin.PartyID `bun:"party"`
	Kind         string       `bun:"kind"`
	Subtype      string       `bun:"subtype"`
	Counterparty string       `bun:"counterparty"`
	Amount       coin.Amount  `bun:"amount,type:text"`
	Fees         coin.Amount  `bun:"fees,type:text"`
	Description  string       `bun:"description"`
	Round        coin.Round   `bun:"round"`
	RecordTime   time.Time    `bun:"record_time"`
	Details      string       `bun:"details"`
	// The counterparty's view, nil when the row is Party's alone.
	CounterAmount *coin.Amount `bun:"counter_amount,type:text"`
	CounterFees   *coin.Amount `bun:"counter_fees,type:text"`
}

// Command is a deduplication record.
type Command struct {
	bun.BaseModel `bun:"table:commands"`

	DedupKey  string       `bun:"dedup_key,pk"`
	Party     coin.PartyID `bun:"party"`
	Kind      string       `bun:"kind"`
	OffsetID  *int64       `bun:"offset_id"`
	Result    string       `bun:"result"`
	CreatedAt time.Time    `bun:"created_at"`
}

// Completion is a Ledger API command's outcome, at the offset of the
// update that carried it.
type Completion struct {
	bun.BaseModel `bun:"table:completions"`

	OffsetID     int64     `bun:"offset_id,pk"`
	UserID       string    `bun:"user_id"`
	CommandID    string    `bun:"command_id"`
	ActAs        string    `bun:"act_as"`
	SubmissionID string    `bun:"submission_id"`
	UpdateID     string    `bun:"update_id"`
	StatusCode   int64     `bun:"status_code"`
	Message      string    `bun:"message"`
	RecordTime   time.Time `bun:"record_time"`
	// Exercise is the command's root exercise as JSON (commands.Exercise),
	// "" for none.
	Exercise string `bun:"exercise"`
}

// RewardCoupon is a reward waiting to be minted.
type RewardCoupon struct {
	bun.BaseModel `bun:"table:reward_coupons"`

	ContractID  coin.ContractID `bun:"contract_id,pk"`
	Kind        string          `bun:"kind"`
	Beneficiary coin.PartyID    `bun:"beneficiary"`
	Amount      coin.Amount     `bun:"amount,type:text"`
	Round       coin.Round      `bun:"round"`
	Featured    bool            `bun:"featured"`
	CollectedAt bun.NullTime    `bun:"collected_at"`
	// The coupon's contract (it has no contracts row) is created at
	// CreatedOffset and CreatedAt, and archived by its collection at
	// CollectedOffset.
	CreatedOffset   int64     `bun:"created_offset"`
	CreatedAt       time.Time `bun:"created_at"`
	CollectedOffset *int64    `bun:"collected_offset"`
}
