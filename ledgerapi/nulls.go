package ledgerapi

import (
	"bytes"
	"encoding/json"
)

// withoutNulls is raw with every object member whose value is null
// removed, at any depth: Canton takes an Optional field sent as null as
// None, the same as leaving it out, and ignores an unexpected field whose
// value is null (only a non-null one is "Unexpected fields"). A variant's
// value stays, whatever it is. raw that does not parse is returned as
// is, for the decoder to refuse.
func withoutNulls(raw json.RawMessage) json.RawMessage {
	if !bytes.Contains(raw, []byte("null")) {
		return raw
	}
	var v any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return raw
	}
	out, err := json.Marshal(dropNulls(v))
	if err != nil {
		return raw
	}
	return out
}

func dropNulls(v any) any {
	switch x := v.(type) {
	case map[string]any:
		_, variant := x["tag"]
		for k, e := range x {
			if e == nil && !(variant && k == "value") {
				delete(x, k)
				continue
			}
			x[k] = dropNulls(e)
		}
	case []any:
		for i, e := range x {
			x[i] = dropNulls(e)
		}
	}
	return v
}
