package interactive

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger/preparedtx"
	"github.com/ccwallet/ccwallet/ledgerapi/internal/canton"
)

// Daml-JSON to Daml-LF values and back, for the prepared transaction. The
// ledger keeps no Daml schema, so a value's type comes from its JSON and
// the field that holds it: contract and party ids, ISO timestamps and
// decimals by their shape, {"tag","value"} as a variant, the token
// standard's maps (meta values, transfer legs) as TextMaps, other objects
// as records, typed by the field's record where the token standard names
// it. What comes back out is the JSON the command was prepared from, with
// timestamps at microseconds, which is what execute runs.

// recordTypes are the token standard's record types, by the field that
// holds them.
var recordTypes = map[string]string{
	"transfer":      "#splice-api-token-transfer-instruction-v1:Splice.Api.Token.TransferInstructionV1:Transfer",
	"instrumentId":  "#splice-api-token-holding-v1:Splice.Api.Token.HoldingV1:InstrumentId",
	"meta":          "#splice-api-token-metadata-v1:Splice.Api.Token.MetadataV1:Metadata",
	"extraArgs":     "#splice-api-token-metadata-v1:Splice.Api.Token.MetadataV1:ExtraArgs",
	"context":       "#splice-api-token-metadata-v1:Splice.Api.Token.MetadataV1:ChoiceContext",
	"allocation":    "#splice-api-token-allocation-v1:Splice.Api.Token.AllocationV1:AllocationSpecification",
	"settlement":    "#splice-api-token-allocation-v1:Splice.Api.Token.AllocationV1:SettlementInfo",
	"transferLeg":   "#splice-api-token-allocation-v1:Splice.Api.Token.AllocationV1:TransferLeg",
	"settlementRef": "#splice-api-token-allocation-v1:Splice.Api.Token.AllocationV1:Reference",
}

// textMaps are the fields that hold a TextMap.
var textMaps = map[string]bool{"values": true, "transferLegs": true, "allocationsWithContext": true}

const anyValueType = "#splice-api-token-metadata-v1:Splice.Api.Token.MetadataV1:AnyValue"

var decimalRe = regexp.MustCompile(`^-?[0-9]+\.[0-9]+$`)

// damlValue converts the JSON raw held by field; id, when set, types a
// record.
func damlValue(raw json.RawMessage, field string, id *preparedtx.Identifier, depth int) (preparedtx.Value, error) {
	if depth > preparedtx.MaxDepth {
		return preparedtx.Value{}, canton.InvalidArgument("%s: values nested deeper than %d", field, preparedtx.MaxDepth)
	}
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return preparedtx.Value{Kind: preparedtx.KindOptional}, nil
	}
	switch raw[0] {
	case '{':
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(raw, &obj); err != nil {
			return preparedtx.Value{}, canton.InvalidArgument("%s: %v", field, err)
		}
		keys := slices.Sorted(maps.Keys(obj))
		if len(obj) == 2 && obj["tag"] != nil && obj["value"] != nil {
			var tag string
			if err := json.Unmarshal(obj["tag"], &tag); err == nil {
				inner, err := damlValue(obj["value"], field+".value", nil, depth+1)
				if err != nil {
					return preparedtx.Value{}, err
				}
				v := preparedtx.Value{Kind: preparedtx.KindVariant, Str: tag, Elem: &inner}
				if len(tag) > 3 && tag[:3] == "AV_" {
					t := identifier(anyValueType)
					v.ID = &t
				}
				return v, nil
			}
		}
		v := preparedtx.Value{Kind: preparedtx.KindRecord, ID: id}
		if textMaps[field] {
			v = preparedtx.Value{Kind: preparedtx.KindTextMap}
		}
		for _, k := range keys {
			var fid *preparedtx.Identifier
			if t, ok := recordTypes[k]; ok && v.Kind == preparedtx.KindRecord {
				i := identifier(t)
				fid = &i
			}
			fv, err := damlValue(obj[k], k, fid, depth+1)
			if err != nil {
				return preparedtx.Value{}, err
			}
			v.Fields = append(v.Fields, preparedtx.Field{Label: k, Value: fv})
		}
		return v, nil
	case '[':
		var arr []json.RawMessage
		if err := json.Unmarshal(raw, &arr); err != nil {
			return preparedtx.Value{}, canton.InvalidArgument("%s: %v", field, err)
		}
		v := preparedtx.Value{Kind: preparedtx.KindList, List: []preparedtx.Value{}}
		for i, e := range arr {
			ev, err := damlValue(e, fmt.Sprintf("%s[%d]", field, i), nil, depth+1)
			if err != nil {
				return preparedtx.Value{}, err
			}
			v.List = append(v.List, ev)
		}
		return v, nil
	case '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return preparedtx.Value{}, canton.InvalidArgument("%s: %v", field, err)
		}
		if _, err := coin.ParseContractID(s); err == nil {
			return preparedtx.Value{Kind: preparedtx.KindContractID, Str: s}, nil
		}
		if _, err := coin.ParsePartyID(s); err == nil {
			return preparedtx.Value{Kind: preparedtx.KindParty, Str: s}, nil
		}
		if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
			return preparedtx.Value{Kind: preparedtx.KindTimestamp, Int: t.UnixMicro()}, nil
		}
		if decimalRe.MatchString(s) {
			return preparedtx.Value{Kind: preparedtx.KindNumeric, Str: s}, nil
		}
		return preparedtx.Value{Kind: preparedtx.KindText, Str: s}, nil
	case 't', 'f':
		var b bool
		if err := json.Unmarshal(raw, &b); err != nil {
			return preparedtx.Value{}, canton.InvalidArgument("%s: %v", field, err)
		}
		return preparedtx.Value{Kind: preparedtx.KindBool, Bool: b}, nil
	default:
		var n json.Number
		if err := json.Unmarshal(raw, &n); err != nil {
			return preparedtx.Value{}, canton.InvalidArgument("%s: %v", field, err)
		}
		return preparedtx.Value{Kind: preparedtx.KindNumeric, Str: n.String()}, nil
	}
}

// jsonValue is a value in the JSON API's encoding.
func jsonValue(v preparedtx.Value) (any, error) {
	switch v.Kind {
	case preparedtx.KindUnit:
		return map[string]any{}, nil
	case preparedtx.KindBool:
		return v.Bool, nil
	case preparedtx.KindInt64:
		return strconv.FormatInt(v.Int, 10), nil
	case preparedtx.KindDate:
		return time.Unix(v.Int*86400, 0).UTC().Format(time.DateOnly), nil
	case preparedtx.KindTimestamp:
		return canton.FormatTime(time.UnixMicro(v.Int)), nil
	case preparedtx.KindNumeric, preparedtx.KindParty, preparedtx.KindText, preparedtx.KindContractID:
		return v.Str, nil
	case preparedtx.KindEnum:
		return v.Str, nil
	case preparedtx.KindOptional:
		if v.Elem == nil {
			return nil, nil
		}
		return jsonValue(*v.Elem)
	case preparedtx.KindList:
		out := make([]any, 0, len(v.List))
		for _, e := range v.List {
			j, err := jsonValue(e)
			if err != nil {
				return nil, err
			}
			out = append(out, j)
		}
		return out, nil
	case preparedtx.KindRecord, preparedtx.KindTextMap:
		out := make(map[string]any, len(v.Fields))
		for _, f := range v.Fields {
			j, err := jsonValue(f.Value)
			if err != nil {
				return nil, err
			}
			out[f.Label] = j
		}
		return out, nil
	case preparedtx.KindGenMap:
		out := make([]any, 0, len(v.Entries))
		for _, kv := range v.Entries {
			k, err := jsonValue(kv[0])
			if err != nil {
				return nil, err
			}
			val, err := jsonValue(kv[1])
			if err != nil {
				return nil, err
			}
			out = append(out, []any{k, val})
		}
		return out, nil
	case preparedtx.KindVariant:
		inner, err := jsonValue(*v.Elem)
		if err != nil {
			return nil, err
		}
		return map[string]any{"tag": v.Str, "value": inner}, nil
	}
	return nil, fmt.Errorf("a value of unknown kind %d", v.Kind)
}
