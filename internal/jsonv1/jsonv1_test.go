package jsonv1_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/ccwallet/ccwallet/internal/jsonv1"
)

// upper decodes a JSON string upper-cased: a type with its own
// UnmarshalJSON, as coin.Amount and the contract ID types are.
type upper string

func (u *upper) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	if s == "refuse" {
		return errors.New("upper: refused")
	}
	*u = upper(strings.ToUpper(s))
	return nil
}

// target has the kinds of fields the wallet's requests decode into.
type target struct {
	Name     string                       `json:"name"`
	Count    int                          `json:"count"`
	Ratio    float64                      `json:"ratio"`
	Ok       *bool                        `json:"ok"`
	Tags     []string                     `json:"tags"`
	Values   map[string]string            `json:"values"`
	Raw      json.RawMessage              `json:"raw"`
	Commands []map[string]json.RawMessage `json:"commands"`
	Upper    upper                        `json:"upper"`
	Any      any                          `json:"any"`
	Nested   *struct {
		Admin string `json:"admin"`
		ID    string `json:"id,omitempty"`
	} `json:"nested"`
	Skipped string `json:"-"`
}

var inputs = []string{
	`{}`,
	`{"name":"alice","count":3,"ratio":1.5,"ok":true,"tags":["a","b"],"values":{"k":"v"},"raw":{"x":[1,2,{"y":null}]},"upper":"abc","any":{"n":1.25,"s":"t"},"nested":{"admin":"DSO::12","id":"Amulet"}}`,
	`{"commands":[{"ExerciseCommand":{"choice":"X","choiceArgument":{"a":"\u00e9\n"}}}]}`,
	`{"NAME":"case","Count":1}`,               // v1 matches names without regard to case
	`{"name":"first","name":"second"}`,        // duplicate names: the last wins
	"{\"name\":\"bad \xff utf-8\"}",           // invalid UTF-8 is replaced
	`{"name":"x","unknown":{"deep":[1,2,3]}}`, // unknown members are skipped
	`{"count":"3"}`,                           // type errors
	`{"count":1.5}`,
	`{"tags":"a"}`,
	`{"nested":[]}`,
	`{"upper":"refuse"}`, // a method's own error
	`{"upper":5}`,
	`{"name":"x"`, // syntax errors
	`{"name":"x"}}`,
	`{"name":"x"} {"name":"y"}`,
	`{"name":'x'}`,
	`[1,2]`,
	`null`,
	``,
	`  {"name" : "spaced" ,"count": -0 }  `,
	`{"count":1e2}`,
	`{"raw":}`,
	`{"name":"\ud800"}`, // a lone surrogate
	`{"-":"dash","Skipped":"no"}`,
	`{"any":[1,"2",{"3":[4]}],"values":null,"tags":null}`,
	`[1.50,-0,2e-3,"x",true,false,null,[],{}]`, // numbers as written
	`{"a":1,"a":{"b":[null]}}`,
	`"just a string"`,
	`12 trailing`,
}

// check decodes in into fresh targets with encoding/json and with jsonv1
// (decode picks the function of each) and fails unless both give the same
// value and the same error.
func check(t *testing.T, in []byte, std, fast func([]byte, any) error) {
	var a, b target
	errA, errB := std(in, &a), fast(in, &b)
	if (errA == nil) != (errB == nil) || errA != nil && errA.Error() != errB.Error() {
		t.Fatalf("%q: encoding/json says %v, jsonv1 %v", in, errA, errB)
	}
	if errA == nil && !reflect.DeepEqual(a, b) {
		t.Fatalf("%q: encoding/json decodes %+v, jsonv1 %+v", in, a, b)
	}
}

func stdStrict(in []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(in))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

func stdAny(in []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(in))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	return v, err
}

// checkAny holds DecodeAnyUseNumber to the same value and error as
// encoding/json's Decoder with UseNumber.
func checkAny(t *testing.T, in []byte) {
	a, errA := stdAny(in)
	b, errB := jsonv1.DecodeAnyUseNumber(in)
	if (errA == nil) != (errB == nil) || errA != nil && errA.Error() != errB.Error() {
		t.Fatalf("%q: encoding/json says %v, jsonv1 %v", in, errA, errB)
	}
	if errA == nil && !reflect.DeepEqual(a, b) {
		t.Fatalf("%q: encoding/json decodes %#v, jsonv1 %#v", in, a, b)
	}
}

func TestSameAsEncodingJSON(t *testing.T) {
	for _, in := range inputs {
		checkAny(t, []byte(in))
		check(t, []byte(in), json.Unmarshal, jsonv1.Unmarshal)
		check(t, []byte(in), stdStrict, jsonv1.DecodeStrict)
		if got, want := jsonv1.Valid([]byte(in)), json.Valid([]byte(in)); got != want {
			t.Fatalf("%q: Valid %v, encoding/json's %v", in, got, want)
		}
	}
}

// FuzzSameAsEncodingJSON runs in make fuzz; its seeds run in make test.
func FuzzSameAsEncodingJSON(f *testing.F) {
	for _, in := range inputs {
		f.Add([]byte(in))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		check(t, in, json.Unmarshal, jsonv1.Unmarshal)
		check(t, in, stdStrict, jsonv1.DecodeStrict)
		checkAny(t, in)
		if jsonv1.Valid(in) != json.Valid(in) {
			t.Fatalf("%q: Valid differs", in)
		}
	})
}
