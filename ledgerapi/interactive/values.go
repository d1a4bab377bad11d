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
	"github.com/ccwallet/ccwallet/internal/jsonv1"
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
// record. raw is decoded once (its numbers as written), then walked.
func damlValue(raw json.RawMessage, field string, id *preparedtx.Identifier, depth int) (preparedtx.Value, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return preparedtx.Value{Kind: preparedtx.KindOptional}, nil
	}
	v, err := jsonv1.DecodeAnyUseNumber(raw)
	if err != nil {
		return preparedtx.Value{}, canton.InvalidArgument("%s: %v", field, err)
	}
	return damlOf(v, field, id, depth)
}

// damlOf is damlValue of a decoded JSON value v.
func damlOf(v any, field string, id *preparedtx.Identifier, depth int) (preparedtx.Value, error) {
	if depth > preparedtx.MaxDepth {
		return preparedtx.Value{}, canton.InvalidArgument("%s: values nested deeper than %d", field, preparedtx.MaxDepth)
	}
	switch v := v.(type) {
	case nil:
		return preparedtx.Value{Kind: preparedtx.KindOptional}, nil
	case map[string]any:
		tag, hasTag := v["tag"]
		value, hasValue := v["value"]
		if s, isText := tag.(string); len(v) == 2 && hasTag && hasValue && (isText || tag == nil) {
			inner, err := damlOf(value, field+".value", nil, depth+1)
			if err != nil {
				return preparedtx.Value{}, err
			}
			out := preparedtx.Value{Kind: preparedtx.KindVariant, Str: s, Elem: &inner}
			if len(s) > 3 && s[:3] == "AV_" {
				t := identifier(anyValueType)
				out.ID = &t
			}
			return out, nil
		}
		out := preparedtx.Value{Kind: preparedtx.KindRecord, ID: id}
		if textMaps[field] {
			out = preparedtx.Value{Kind: preparedtx.KindTextMap}
		}
		for _, k := range slices.Sorted(maps.Keys(v)) {
			var fid *preparedtx.Identifier
			if t, ok := recordTypes[k]; ok && out.Kind == preparedtx.KindRecord {
				i := identifier(t)
				fid = &i
			}
			fv, err := damlOf(v[k], k, fid, depth+1)
			if err != nil {
				return preparedtx.Value{}, err
			}
			out.Fields = append(out.Fields, preparedtx.Field{Label: k, Value: fv})
		}
		return out, nil
	case []any:
		out := preparedtx.Value{Kind: preparedtx.KindList, List: make([]preparedtx.Value, 0, len(v))}
		for i, e := range v {
			ev, err := damlOf(e, fmt.Sprintf("%s[%d]", field, i), nil, depth+1)
			if err != nil {
				return preparedtx.Value{}, err
			}
			out.List = append(out.List, ev)
		}
		return out, nil
	case string:
		// Most strings are none of these: each is tried without building
		// the error of a failed parse where it can be.
		if coin.IsContractID(v) {
			return preparedtx.Value{Kind: preparedtx.KindContractID, Str: v}, nil
		}
		if coin.IsPartyID(v) {
			return preparedtx.Value{Kind: preparedtx.KindParty, Str: v}, nil
		}
		if len(v) >= len("2006-01-02T15:04:05Z") && v[4] == '-' {
			if t, err := time.Parse(time.RFC3339Nano, v); err == nil {
				return preparedtx.Value{Kind: preparedtx.KindTimestamp, Int: t.UnixMicro()}, nil
			}
		}
		if decimalRe.MatchString(v) {
			return preparedtx.Value{Kind: preparedtx.KindNumeric, Str: v}, nil
		}
		return preparedtx.Value{Kind: preparedtx.KindText, Str: v}, nil
	case bool:
		return preparedtx.Value{Kind: preparedtx.KindBool, Bool: v}, nil
	case json.Number:
		return preparedtx.Value{Kind: preparedtx.KindNumeric, Str: v.String()}, nil
	}
	return preparedtx.Value{}, fmt.Errorf("%s: a JSON value of type %T", field, v)
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
