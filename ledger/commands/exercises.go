package commands

import (
	"encoding/json"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/internal/jsonv1"
)

// Exercise is what a Ledger API command exercised, its root exercise: the
// contract, its template (and the interface the choice belongs to, if
// any), the choice and its argument as submitted, the acting parties and
// the exercise's Daml result. It rides the command's completion
// (Completion.Exercise) and is stored with it, at the update's offset in
// the same transaction as the change, so the Ledger API's ledger-effects
// transactions show the choice (TransferFactory_Transfer with its
// transfer and memo, TransferInstruction_Accept, ...) as Canton does.
type Exercise struct {
	ContractID     coin.ContractID `json:"contractId"`
	TemplateID     string          `json:"templateId"`
	InterfaceID    string          `json:"interfaceId,omitempty"`
	Choice         string          `json:"choice"`
	ChoiceArgument json.RawMessage `json:"choiceArgument"`
	ActingParties  []coin.PartyID  `json:"actingParties"`
	Consuming      bool            `json:"consuming"`
	// ExerciseResult is the exercise's Daml result, shaped from Facts
	// when the Ledger API reads the exercise (ledger/apiread's
	// ShapeExercise); exercises stored before Facts carry it as stored.
	ExerciseResult json.RawMessage `json:"exerciseResult"`
	// Observers and Nested are shaped with it (apiread's receiverView):
	// the parties besides the actors who witness this exercise, and the
	// exercise nested under it that parties who do not witness it see.
	Observers []coin.PartyID `json:"observers,omitempty"`
	Nested    *Exercise      `json:"nested,omitempty"`
	// Facts are what the command's change wrote that the three above are
	// shaped from, stored in their place (ledger.Config.ExerciseFacts);
	// nil once shaped.
	Facts *Facts `json:"facts,omitempty"`
}

// AppendJSON appends e as json.Marshal encodes it, without re-encoding
// its raw parts: json.Marshal compacts every RawMessage into a new
// buffer, HTML-escaping it, at each level of nesting (a transfer's stored
// exercise is 4.5 KB; its json.Marshal was 7% of the wallet's CPU per
// Ledger API transfer, AppendJSON 4.5%). A raw part must be valid JSON
// (checked) and is kept as it is; ok is false, and dst unchanged, when
// one is not, for the caller to fall back to json.Marshal.
func (e *Exercise) AppendJSON(dst []byte) (out []byte, ok bool) {
	start := len(dst)
	if out, ok = e.appendJSON(dst); !ok {
		return dst[:start], false
	}
	return out, true
}

func (e *Exercise) appendJSON(b []byte) ([]byte, bool) {
	b = append(b, `{"contractId":`...)
	b = AppendJSONString(b, string(e.ContractID))
	b = append(b, `,"templateId":`...)
	b = AppendJSONString(b, e.TemplateID)
	if e.InterfaceID != "" {
		b = append(b, `,"interfaceId":`...)
		b = AppendJSONString(b, e.InterfaceID)
	}
	b = append(b, `,"choice":`...)
	b = AppendJSONString(b, e.Choice)
	b = append(b, `,"choiceArgument":`...)
	var ok bool
	if b, ok = appendRaw(b, e.ChoiceArgument); !ok {
		return b, false
	}
	b = append(b, `,"actingParties":`...)
	b = appendParties(b, e.ActingParties, true)
	b = append(b, `,"consuming":`...)
	if e.Consuming {
		b = append(b, "true"...)
	} else {
		b = append(b, "false"...)
	}
	b = append(b, `,"exerciseResult":`...)
	if b, ok = appendRaw(b, e.ExerciseResult); !ok {
		return b, false
	}
	if len(e.Observers) > 0 {
		b = append(b, `,"observers":`...)
		b = appendParties(b, e.Observers, false)
	}
	if e.Nested != nil {
		b = append(b, `,"nested":`...)
		if b, ok = e.Nested.appendJSON(b); !ok {
			return b, false
		}
	}
	if e.Facts != nil {
		b = append(b, `,"facts":`...)
		b = e.Facts.appendJSON(b)
	}
	return append(b, '}'), true
}

// appendRaw appends raw as json.Marshal does a RawMessage (null when
// empty), if it is valid JSON.
func appendRaw(b []byte, raw json.RawMessage) ([]byte, bool) {
	if len(raw) == 0 {
		return append(b, "null"...), true
	}
	if !jsonv1.Valid(raw) {
		return b, false
	}
	return append(b, raw...), true
}

// appendParties appends ps as a JSON array (null when nil, unless
// empty, as json.Marshal writes a nil slice).
func appendParties(b []byte, ps []coin.PartyID, nilIsNull bool) []byte {
	if ps == nil && nilIsNull {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i, p := range ps {
		if i > 0 {
			b = append(b, ',')
		}
		b = AppendJSONString(b, string(p))
	}
	return append(b, ']')
}

// AppendJSONString appends s as encoding/json writes a string. Party and
// contract IDs, names and numbers never need escaping and go between
// quotes as they are; anything that might (quotes, backslashes, control
// characters, non-ASCII, and the <, > and & that encoding/json escapes
// for HTML) goes through encoding/json, so the bytes stay its own.
func AppendJSONString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(s)
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}
