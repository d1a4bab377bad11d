package ledger

import "github.com/ccwallet/ccwallet/ledger/commands"

// JSON written by hand for what every one-step send creates: two holdings
// (the receiver's and the sender's change) and the history row. Through
// encoding/json (reflection) these, with the app reward coupon a send
// wrote then, were about 6% of the server's CPU per send. Each writes the
// bytes json.Marshal writes (TestPayloadJSONMatchesMarshal), so stored
// payloads, created-event blobs and history read the same.

// jsonAppender is a payload that writes its own JSON (mustJSON).
type jsonAppender interface{ appendJSON(b []byte) []byte }

func (p AmuletPayload) appendJSON(b []byte) []byte {
	b = append(b, `{"dso":`...)
	b = commands.AppendJSONString(b, string(p.DSO))
	b = append(b, `,"owner":`...)
	b = commands.AppendJSONString(b, string(p.Owner))
	b = append(b, `,"amount":{"initialAmount":`...)
	b = p.Amount.InitialAmount.AppendJSON(b)
	b = append(b, `,"createdAt":{"number":`...)
	b = commands.AppendJSONString(b, p.Amount.CreatedAt.Number)
	b = append(b, `},"ratePerRound":{"rate":`...)
	b = p.Amount.RatePerRound.Rate.AppendJSON(b)
	return append(b, "}}}"...)
}

// appendJSON writes d as json.Marshal does, except that no receivers are
// written as [] (the wallet API's transaction shape has a list there).
func (d HistoryDetails) appendJSON(b []byte) []byte {
	b = append(b, '{')
	if d.Provider != "" {
		b = append(b, `"provider":`...)
		b = commands.AppendJSONString(b, string(d.Provider))
		b = append(b, ',')
	}
	b = append(b, `"holding_fees":`...)
	b = d.HoldingFees.AppendJSON(b)
	b = append(b, `,"fees":`...)
	b = d.Fees.AppendJSON(b)
	b = append(b, `,"amulet_price":`...)
	b = d.Price.AppendJSON(b)
	if d.ContractID != "" {
		b = append(b, `,"contract_id":`...)
		b = commands.AppendJSONString(b, string(d.ContractID))
	}
	if d.TrackingID != "" {
		b = append(b, `,"tracking_id":`...)
		b = commands.AppendJSONString(b, d.TrackingID)
	}
	if d.Notification != "" {
		b = append(b, `,"details":`...)
		b = commands.AppendJSONString(b, d.Notification)
	}
	if d.Instructed != nil {
		b = append(b, `,"instructed":`...)
		b = d.Instructed.AppendJSON(b)
	}
	return append(b, '}')
}
