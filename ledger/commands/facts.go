package commands

import (
	"strconv"

	"github.com/ccwallet/ccwallet/coin"
)

// Facts are what a command's change wrote that its exercise's Daml
// result, and who besides its actors witnesses it, are derived from
// (ledger/apiread's ShapeExercise). They are stored with the exercise in
// place of the result and shaped into it when the Ledger API reads the
// transaction: a token-standard transfer's result and the
// TransferPreapproval_Send nested in it were 2.5 of the 4.5 KB stored
// with each completion, and shaping them 10% of the wallet's CPU per
// transfer, for transactions that are mostly never read.
type Facts struct {
	Round    *RoundFact    `json:"round,omitempty"`
	Created  []CreatedFact `json:"created,omitempty"`
	Holdings []HoldingFact `json:"holdings,omitempty"`
	History  []HistoryFact `json:"history,omitempty"`
}

// RoundFact is the open round the change ran in.
type RoundFact struct {
	Number coin.Round  `json:"number"`
	Price  coin.Amount `json:"price"`
}

// CreatedFact is a contract the change created; Payload only where a
// result reads it.
type CreatedFact struct {
	ContractID coin.ContractID `json:"contractId"`
	TemplateID string          `json:"templateId"`
	Payload    string          `json:"payload,omitempty"`
}

// HoldingFact is a holding the change created.
type HoldingFact struct {
	ContractID coin.ContractID `json:"contractId"`
	Owner      coin.PartyID    `json:"owner"`
	Amount     coin.Amount     `json:"amount"`
	LockHolder string          `json:"lockHolder,omitempty"`
}

// HistoryFact is a history row the change wrote: its party, its
// counterparty and the fees its details record.
type HistoryFact struct {
	Party        coin.PartyID `json:"party"`
	Counterparty coin.PartyID `json:"counterparty,omitempty"`
	Fees         coin.Amount  `json:"fees"`
	HoldingFees  coin.Amount  `json:"holdingFees"`
}

// appendJSON appends f as json.Marshal encodes it.
func (f *Facts) appendJSON(b []byte) []byte {
	b = append(b, '{')
	start := len(b)
	if f.Round != nil {
		b = append(b, `"round":{"number":`...)
		b = strconv.AppendInt(b, int64(f.Round.Number), 10)
		b = append(b, `,"price":`...)
		b = f.Round.Price.AppendJSON(b)
		b = append(b, '}')
	}
	b = appendList(b, start, "created", f.Created, func(b []byte, c CreatedFact) []byte {
		b = append(b, `{"contractId":`...)
		b = AppendJSONString(b, string(c.ContractID))
		b = append(b, `,"templateId":`...)
		b = AppendJSONString(b, c.TemplateID)
		if c.Payload != "" {
			b = append(b, `,"payload":`...)
			b = AppendJSONString(b, c.Payload)
		}
		return append(b, '}')
	})
	b = appendList(b, start, "holdings", f.Holdings, func(b []byte, h HoldingFact) []byte {
		b = append(b, `{"contractId":`...)
		b = AppendJSONString(b, string(h.ContractID))
		b = append(b, `,"owner":`...)
		b = AppendJSONString(b, string(h.Owner))
		b = append(b, `,"amount":`...)
		b = h.Amount.AppendJSON(b)
		if h.LockHolder != "" {
			b = append(b, `,"lockHolder":`...)
			b = AppendJSONString(b, h.LockHolder)
		}
		return append(b, '}')
	})
	b = appendList(b, start, "history", f.History, func(b []byte, h HistoryFact) []byte {
		b = append(b, `{"party":`...)
		b = AppendJSONString(b, string(h.Party))
		if h.Counterparty != "" {
			b = append(b, `,"counterparty":`...)
			b = AppendJSONString(b, string(h.Counterparty))
		}
		b = append(b, `,"fees":`...)
		b = h.Fees.AppendJSON(b)
		b = append(b, `,"holdingFees":`...)
		b = h.HoldingFees.AppendJSON(b)
		return append(b, '}')
	})
	return append(b, '}')
}

// appendList appends an omitempty list member of an object whose members
// begin at b[start]: nothing for no items, else its name and its items,
// each appended by one, after a comma unless it is the first member.
func appendList[T any](b []byte, start int, name string, items []T, one func([]byte, T) []byte) []byte {
	if len(items) == 0 {
		return b
	}
	if len(b) > start {
		b = append(b, ',')
	}
	b = append(b, '"')
	b = append(b, name...)
	b = append(b, `":[`...)
	for i, it := range items {
		if i > 0 {
			b = append(b, ',')
		}
		b = one(b, it)
	}
	return append(b, ']')
}
