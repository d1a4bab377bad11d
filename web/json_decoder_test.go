package web

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
)

// TestDecodeJSONAsTheDecoder: DecodeJSONLimit, which decodes a body read
// whole in one go, answers every body (values, trailing data, syntax and
// type errors, NUL, bodies over the limit) with the value and the error
// the stream decoder gave.
func TestDecodeJSONAsTheDecoder(t *testing.T) {
	type dst struct {
		A string          `json:"a"`
		N int             `json:"n"`
		R json.RawMessage `json:"r"`
		M map[string]any  `json:"m"`
		L []int           `json:"l"`
	}
	const limit = 64
	bodies := []string{
		`{"a":"x","n":1,"r":{"k": [1, 2]},"m":{"b":null},"l":[1,2]}`, ` {"a":"x"} `, "{\"a\":\"x\"}\n\t",
		``, ` `, `{`, `{"a":}`, `{"a":"x"}{"a":"y"}`, `{"a":"x"} x`, `{"a":"x"} 1`, `[1]`, `"s"`, `12`, `null`,
		`{"n":"x"}`, `{"n":"x"} trailing`, `{"n":1.5,"a":"y"}`, `{"a":"\u0000"}`, `{"a":"x\u0000"} `, `{"A":"case"}`,
		`{"a":"x","a":"y"}`, `{"l":[1,"x",3]}`, "{\"a\":\"\xff\"}", `{"a":"\\u0000"}`, `{"m":{"k":["\u0000"]}}`, `{"m":{"\u0000":1}}`,
		`{"a":"` + strings.Repeat("x", 80) + `"}`, `{"a":"x"}` + strings.Repeat(" ", 80), `{"a":"x"}` + strings.Repeat(" ", 40) + "garbage" + strings.Repeat(" ", 40),
	}
	for _, body := range bodies {
		var got, want dst
		gotErr := DecodeJSONLimit(httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body)), &got, limit)
		// The reference: the stream decoder alone, as DecodeJSONLimit
		// decoded before it read the body whole.
		wantErr := decodeStream(http.MaxBytesReader(nil, io.NopCloser(strings.NewReader(body)), limit), &want, limit)
		if (gotErr == nil) != (wantErr == nil) || gotErr != nil && gotErr.Error() != wantErr.Error() {
			t.Errorf("%q: error %v, want %v", body, gotErr, wantErr)
			continue
		}
		var gotRE, wantRE *RequestError
		if errors.As(gotErr, &gotRE) != errors.As(wantErr, &wantRE) || gotRE != nil && gotRE.Status != wantRE.Status {
			t.Errorf("%q: error %#v, want %#v", body, gotErr, wantErr)
		}
		if wantErr == nil && !reflect.DeepEqual(got, want) {
			t.Errorf("%q: decoded %+v, want %+v", body, got, want)
		}
	}
}
