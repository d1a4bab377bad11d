package web

import (
	"encoding/json"
	"errors"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

type transferReq struct {
	Receiver string `json:"receiver"`
	Amount   string `json:"amount"`
	Count    int    `json:"count"`
	Tags     []string
}

var errBadAmount = errors.New("amount has more than 10 decimals")

type strictAmount string

func (a *strictAmount) UnmarshalJSON(b []byte) error { return errBadAmount }

func jsonRequest(body string, contentType string) *http.Request {
	var r *http.Request
	if body == "" {
		r = httptest.NewRequest(http.MethodPost, "/", nil)
	} else {
		r = httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
	}
	if contentType != "" {
		r.Header.Set("Content-Type", contentType)
	}
	return r
}

func TestDecodeJSON(t *testing.T) {
	got := transferReq{}
	err := DecodeJSON(jsonRequest(`{"receiver":"bob::1220","amount":"1.5","unknown":{"x":1}}`+"\n \t", ""), &got)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(transferReq{Receiver: "bob::1220", Amount: "1.5"}, got); diff != "" {
		t.Errorf("decoded mismatch (-want +got):\n%s", diff)
	}
}

func TestDecodeJSONErrors(t *testing.T) {
	tests := []struct {
		name       string
		body       string
		ctype      string
		wantStatus int
		wantMsg    string // prefix
	}{
		{"empty body", "", "application/json", 400, "request body must not be empty"},
		{"whitespace only", "   ", "application/json", 400, "request body must not be empty"},
		{"syntax error", `{"receiver":}`, "application/json", 400, "malformed JSON: invalid character '}'"},
		{"truncated", `{"receiver":"bob"`, "application/json", 400, "malformed JSON: unexpected end of input"},
		{"wrong type", `{"count":"three"}`, "", 400, `malformed JSON: field "count" must be an integer, got string`},
		{"wrong top-level type", `[1,2]`, "", 400, "malformed JSON: expected an object, got array"},
		{"trailing object", `{"count":1}{"count":2}`, "", 400, "malformed JSON: unexpected data after the top-level value"},
		{"trailing garbage", `{"count":1} x`, "", 400, "malformed JSON: unexpected data after the top-level value"},
		{"too large", `{"receiver":"` + strings.Repeat("a", int(DefaultMaxBodyBytes)) + `"}`, "", 413, "request body too large"},
		{"too large in trailing data", `{"count":1}` + strings.Repeat(" ", int(DefaultMaxBodyBytes)) + `{}`, "", 413, "request body too large"},
		{"form content type", `receiver=bob`, "application/x-www-form-urlencoded", 415, "Content-Type must be application/json"},
		{"multipart content type", `--x`, "multipart/form-data; boundary=x", 415, "Content-Type must be application/json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var dst transferReq
			err := DecodeJSON(jsonRequest(tt.body, tt.ctype), &dst)
			var re *RequestError
			if !errors.As(err, &re) {
				t.Fatalf("err = %v (%T), want *RequestError", err, err)
			}
			if re.Status != tt.wantStatus || !strings.HasPrefix(re.Msg, tt.wantMsg) {
				t.Errorf("got %d %q, want %d %q...", re.Status, re.Msg, tt.wantStatus, tt.wantMsg)
			}
		})
	}
}

func TestDecodeJSONLenientContentType(t *testing.T) {
	for _, ct := range []string{"", "application/json", "application/json; charset=utf-8", "text/plain", "application/merge-patch+json"} {
		var dst transferReq
		if err := DecodeJSON(jsonRequest(`{"count":3}`, ct), &dst); err != nil || dst.Count != 3 {
			t.Errorf("Content-Type %q: %v, %+v", ct, err, dst)
		}
	}
}

func TestDecodeJSONLimit(t *testing.T) {
	var dst map[string]string
	if err := DecodeJSONLimit(jsonRequest(`{"a":"12345"}`, ""), &dst, 13); err != nil {
		t.Fatalf("at the limit: %v", err)
	}
	err := DecodeJSONLimit(jsonRequest(`{"a":"123456"}`, ""), &dst, 13)
	var re *RequestError
	if !errors.As(err, &re) || re.Status != http.StatusRequestEntityTooLarge {
		t.Fatalf("over the limit: %v", err)
	}
}

func TestDecodeJSONKeepsCause(t *testing.T) {
	var dst struct {
		Amount strictAmount `json:"amount"`
	}
	err := DecodeJSON(jsonRequest(`{"amount":"1.00000000001"}`, ""), &dst)
	var re *RequestError
	if !errors.As(err, &re) || re.Status != 400 {
		t.Fatalf("err = %v", err)
	}
	if !errors.Is(err, errBadAmount) {
		t.Errorf("the UnmarshalJSON error is not reachable with errors.Is: %v", err)
	}
	if !strings.Contains(re.Msg, errBadAmount.Error()) {
		t.Errorf("message %q does not say what is wrong", re.Msg)
	}
}

func TestDecodeJSONNonPointerIsNotAClientError(t *testing.T) {
	var dst transferReq
	err := DecodeJSON(jsonRequest(`{}`, ""), dst)
	var re *RequestError
	if err == nil || errors.As(err, &re) {
		t.Fatalf("err = %v, want a plain (500) error", err)
	}
}

func TestWriteJSON(t *testing.T) {
	rec := httptest.NewRecorder()
	if err := WriteJSON(rec, http.StatusCreated, map[string]int{"n": 1}); err != nil {
		t.Fatal(err)
	}
	if rec.Code != 201 || rec.Body.String() != "{\"n\":1}\n" ||
		rec.Header().Get("Content-Type") != "application/json; charset=utf-8" || rec.Header().Get("Cache-Control") != "no-store" {
		t.Errorf("got %d %q %v", rec.Code, rec.Body, rec.Header())
	}

	rec = httptest.NewRecorder()
	if err := WriteJSON(rec, http.StatusOK, math.Inf(1)); err == nil {
		t.Error("unmarshalable value: no error returned")
	}
	wantInternal(t, rec.Result())
}

func TestWriteError(t *testing.T) {
	rec := httptest.NewRecorder()
	WriteError(rec, http.StatusConflict, `holding "x" is locked`)
	var body map[string]string
	if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]string{"error": `holding "x" is locked`}, body); rec.Code != 409 || diff != "" {
		t.Errorf("status %d, body (-want +got):\n%s", rec.Code, diff)
	}
}

// wantInternal checks the generic 500 every unexpected failure gets.
func wantInternal(t *testing.T, resp *http.Response) {
	t.Helper()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 500 || strings.TrimSpace(string(b)) != `{"error":"An unexpected error occurred."}` {
		t.Errorf("got %d %s, want the generic 500", resp.StatusCode, b)
	}
}
