package handlerstest

// The JSON APIs' client: each exchange of an operation of the specs is
// checked against them (spec.go).

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
)

// APIClient calls a handler through httptest as one user.
type APIClient struct {
	T     testing.TB
	H     http.Handler
	Token string
}

// APIResponse is a recorded answer.
type APIResponse struct {
	Status int
	Body   []byte
}

// JSON decodes the body into v, failing the test on error.
func (r APIResponse) JSON(t testing.TB, v any) {
	t.Helper()
	if err := json.Unmarshal(r.Body, v); err != nil {
		t.Fatalf("decode %s: %v", r.Body, err)
	}
}

// Error returns the {"error"} message.
func (r APIResponse) Error() string {
	var e struct {
		Error string `json:"error"`
	}
	_ = json.Unmarshal(r.Body, &e)
	return e.Error
}

func (c APIClient) Exchange(method, path string, body any) (*http.Request, []byte, *httptest.ResponseRecorder) {
	c.T.Helper()
	var raw []byte
	switch b := body.(type) {
	case nil:
	case string:
		raw = []byte(b)
	case []byte:
		raw = b
	default:
		var err error
		if raw, err = json.Marshal(b); err != nil {
			c.T.Fatal(err)
		}
	}
	req := httptest.NewRequest(method, path, bytes.NewReader(raw))
	if raw != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.Token != "" {
		req.Header.Set("Authorization", "Bearer "+c.Token)
	}
	rec := httptest.NewRecorder()
	c.H.ServeHTTP(rec, req.Clone(context.Background()))
	return req, raw, rec
}

// Do sends a request for an operation of the specs and checks both sides
// against it (SpecCheck).
func (c APIClient) Do(method, path string, body any) APIResponse {
	c.T.Helper()
	req, raw, rec := c.Exchange(method, path, body)
	SpecCheck(c.T, req, raw, rec.Code, rec.Header(), rec.Body.Bytes())
	return APIResponse{Status: rec.Code, Body: rec.Body.Bytes()}
}

// DoOwn sends a request to one of our own endpoints, not in the specs; an
// error answer must still be {"error": string}.
func (c APIClient) DoOwn(method, path string, body any) APIResponse {
	c.T.Helper()
	_, _, rec := c.Exchange(method, path, body)
	if rec.Code >= 400 {
		var e struct {
			Error *string `json:"error"`
		}
		if json.Unmarshal(rec.Body.Bytes(), &e) != nil || e.Error == nil {
			c.T.Errorf("%s %s: %d body %q is not {\"error\": string}", method, path, rec.Code, rec.Body.Bytes())
		}
	}
	return APIResponse{Status: rec.Code, Body: rec.Body.Bytes()}
}

// Raw sends a request without checking it against the specs: the bodies
// here are meant to be wrong. InvalidUTF8 in the encoded body becomes raw
// invalid UTF-8 bytes, which json.Marshal would otherwise replace.
func (c APIClient) Raw(method, path string, body any) APIResponse {
	c.T.Helper()
	if m, ok := body.(map[string]any); ok {
		b := MustMarshal(c.T, m)
		body = bytes.ReplaceAll(b, []byte(InvalidUTF8), []byte("\xff\xfe\xc0"))
	}
	_, _, rec := c.Exchange(method, path, body)
	return APIResponse{Status: rec.Code, Body: rec.Body.Bytes()}
}

const InvalidUTF8 = "INVALID-UTF8"

func MustMarshal(t testing.TB, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
