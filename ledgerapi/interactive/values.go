package interactive

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/internal/jsonv1"
	"github.com/ccwallet/ccwallet/ledger/commands"
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

// appendJSONValue appends v in the JSON API's encoding, the bytes
// encoding/json writes for it as nested maps and slices (an object's names
// sorted, the last of a repeated one kept; strings as it escapes them),
// without building them: that tree, its encoding and the decode of the
// command back were 3.5% of the wallet's CPU per SDK transfer
// (bench/NOTES.md).
func appendJSONValue(b []byte, v preparedtx.Value) ([]byte, error) {
	switch v.Kind {
	case preparedtx.KindUnit:
		return append(b, "{}"...), nil
	case preparedtx.KindBool:
		return strconv.AppendBool(b, v.Bool), nil
	case preparedtx.KindInt64:
		b = append(b, '"')
		return append(strconv.AppendInt(b, v.Int, 10), '"'), nil
	case preparedtx.KindDate:
		return commands.AppendJSONString(b, time.Unix(v.Int*86400, 0).UTC().Format(time.DateOnly)), nil
	case preparedtx.KindTimestamp:
		return commands.AppendJSONString(b, canton.FormatTime(time.UnixMicro(v.Int))), nil
	case preparedtx.KindNumeric, preparedtx.KindParty, preparedtx.KindText, preparedtx.KindContractID, preparedtx.KindEnum:
		return commands.AppendJSONString(b, v.Str), nil
	case preparedtx.KindOptional:
		if v.Elem == nil {
			return append(b, "null"...), nil
		}
		return appendJSONValue(b, *v.Elem)
	case preparedtx.KindList:
		b = append(b, '[')
		for i, e := range v.List {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = appendJSONValue(b, e); err != nil {
				return nil, err
			}
		}
		return append(b, ']'), nil
	case preparedtx.KindRecord, preparedtx.KindTextMap:
		return appendJSONObject(b, v.Fields)
	case preparedtx.KindGenMap:
		b = append(b, '[')
		for i, kv := range v.Entries {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, '[')
			var err error
			if b, err = appendJSONValue(b, kv[0]); err != nil {
				return nil, err
			}
			b = append(b, ',')
			if b, err = appendJSONValue(b, kv[1]); err != nil {
				return nil, err
			}
			b = append(b, ']')
		}
		return append(b, ']'), nil
	case preparedtx.KindVariant:
		if v.Elem == nil {
			return nil, fmt.Errorf("variant %s without a value", v.Str)
		}
		b = append(b, `{"tag":`...)
		b = commands.AppendJSONString(b, v.Str)
		b = append(b, `,"value":`...)
		b, err := appendJSONValue(b, *v.Elem)
		if err != nil {
			return nil, err
		}
		return append(b, '}'), nil
	}
	return nil, fmt.Errorf("a value of unknown kind %d", v.Kind)
}

// appendJSONObject appends fields as an object, as encoding/json writes a
// map: names in byte order, a repeated name's last value.
func appendJSONObject(b []byte, fields []preparedtx.Field) ([]byte, error) {
	order := make([]int, len(fields))
	for i := range order {
		order[i] = i
	}
	// Stable, so of a repeated name the last comes last.
	slices.SortStableFunc(order, func(i, j int) int { return strings.Compare(fields[i].Label, fields[j].Label) })
	b = append(b, '{')
	first := true
	for k, i := range order {
		if k+1 < len(order) && fields[order[k+1]].Label == fields[i].Label {
			continue
		}
		if !first {
			b = append(b, ',')
		}
		first = false
		b = commands.AppendJSONString(b, fields[i].Label)
		b = append(b, ':')
		var err error
		if b, err = appendJSONValue(b, fields[i].Value); err != nil {
			return nil, err
		}
	}
	return append(b, '}'), nil
}
