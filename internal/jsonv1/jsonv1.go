// Package jsonv1 is encoding/json's decoding, made fast where it
// succeeds: the JSON v2 implementation (github.com/go-json-experiment/json,
// which Go 1.27's encoding/json runs on) decodes with encoding/json's (v1)
// semantics, about twice as fast on a Ledger API submission as Go 1.26's
// encoding/json, which scans its input once to validate it and once more
// to decode it. Where it fails, encoding/json decodes the input again, so
// the error, and its words in an answer, are encoding/json's.
package jsonv1

import (
	"bytes"
	"encoding/json"
	"errors"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	v1 "github.com/go-json-experiment/json/v1"
)

var (
	lenient = v1.DefaultOptionsV1()
	strict  = jsonv2.JoinOptions(v1.DefaultOptionsV1(), jsonv2.RejectUnknownMembers(true))
)

// Unmarshal is encoding/json.Unmarshal(b, v). On an error v holds what
// either decode set: the same values, as both read one text into one type.
func Unmarshal(b []byte, v any) error {
	if jsonv2.Unmarshal(b, v, lenient) == nil {
		return nil
	}
	return json.Unmarshal(b, v)
}

// DecodeStrict is encoding/json's Decoder with DisallowUnknownFields
// decoding the first value of b into v.
func DecodeStrict(b []byte, v any) error {
	if jsonv2.Unmarshal(b, v, strict) == nil {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

// Valid is encoding/json.Valid(b).
func Valid(b []byte) bool {
	return v1.Valid(b)
}

// DecodeAnyUseNumber is encoding/json's Decoder with UseNumber decoding
// the first value of b into an any: objects as map[string]any (the last
// of a repeated name wins), arrays as []any, numbers as json.Number.
func DecodeAnyUseNumber(b []byte) (any, error) {
	// Invalid UTF-8 is an error here, which encoding/json then answers
	// (replacing the bad bytes), rather than a string kept as it came.
	d := jsontext.NewDecoder(bytes.NewReader(b), jsontext.AllowDuplicateNames(true))
	if v, err := readAny(d); err == nil {
		return v, nil
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	return v, err
}

var errToken = errors.New("jsonv1: unexpected token")

func readAny(d *jsontext.Decoder) (any, error) {
	tok, err := d.ReadToken()
	if err != nil {
		return nil, err
	}
	switch tok.Kind() {
	case '{':
		m := map[string]any{}
		for d.PeekKind() != '}' {
			tok, err := d.ReadToken()
			if err != nil {
				return nil, err
			}
			name := tok.String() // before the next read voids tok
			v, err := readAny(d)
			if err != nil {
				return nil, err
			}
			m[name] = v
		}
		_, err := d.ReadToken()
		return m, err
	case '[':
		a := []any{}
		for d.PeekKind() != ']' {
			v, err := readAny(d)
			if err != nil {
				return nil, err
			}
			a = append(a, v)
		}
		_, err := d.ReadToken()
		return a, err
	case '"':
		return tok.String(), nil
	case '0':
		return json.Number(tok.String()), nil
	case 't':
		return true, nil
	case 'f':
		return false, nil
	case 'n':
		return nil, nil
	}
	return nil, errToken
}
