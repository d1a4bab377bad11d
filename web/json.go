package web

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"reflect"
	"sync"

	"github.com/ccwallet/ccwallet/internal/jsonv1"
)

// DefaultMaxBodyBytes is the request body limit of DecodeJSON. 1 MiB is far
// above any request of the wallet API and small enough that a client cannot
// make the server buffer arbitrary amounts of memory.
const DefaultMaxBodyBytes int64 = 1 << 20

// internalErrorMsg is what clients see for any 5xx: the details stay in the
// log (STYLE habit 3).
const internalErrorMsg = "An unexpected error occurred."

// RequestError is a client error found while reading a request. Status is the
// HTTP status to answer with (400, 413 or 415) and Msg is safe to show to the
// client, so an error adapter can render it as {"error": Msg} directly.
type RequestError struct {
	Status int
	Msg    string
	err    error // the underlying cause, for errors.Is/As; never shown
}

// Error returns the client-facing message.
func (e *RequestError) Error() string { return e.Msg }

// Unwrap exposes the cause, so that an UnmarshalJSON error of a domain type
// (say, an amount with 11 decimals) can still be matched with errors.As.
func (e *RequestError) Unwrap() error { return e.err }

// WriteJSON writes v as JSON with the given status. v is marshalled before
// anything is written, so a marshalling failure still produces a clean 500
// {"error": ...} instead of a half-written body; that failure is returned so
// the caller can log it. Errors writing to the client are returned too; they
// usually mean the client went away and can be ignored.
func WriteJSON(w http.ResponseWriter, status int, v any) error {
	body, err := MarshalJSONBody(v)
	if err != nil {
		WriteJSONBody(w, http.StatusInternalServerError, []byte(`{"error":"`+internalErrorMsg+`"}`+"\n"))
		return err
	}
	return WriteJSONBody(w, status, body)
}

// MarshalJSONBody is v as WriteJSON sends it, for a handler that sends
// the same answer again (WriteJSONBody) without encoding it each time.
func MarshalJSONBody(v any) ([]byte, error) {
	body, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("marshal %T response: %w", v, err)
	}
	return append(body, '\n'), nil
}

// WriteJSONBody writes body, made by MarshalJSONBody, as WriteJSON does;
// body is not changed, so it may be shared.
func WriteJSONBody(w http.ResponseWriter, status int, body []byte) error {
	setJSONHeaders(w, status)
	_, err := w.Write(body)
	return err
}

// WriteError writes {"error": msg} with the given status. It is the only
// error shape of the JSON API (STYLE habit 3). It returns nothing: the body
// cannot fail to marshal, and a failed write means the client is gone.
func WriteError(w http.ResponseWriter, status int, msg string) {
	_ = WriteJSON(w, status, errorBody{Error: msg})
}

type errorBody struct {
	Error string `json:"error"`
}

func setJSONHeaders(w http.ResponseWriter, status int) {
	h := w.Header()
	h["Content-Type"] = headerJSON // shared, as SecurityHeaders' values
	// Answers carry balances and party data: never let a shared cache keep
	// them unless a handler explicitly says otherwise.
	if h.Get("Cache-Control") == "" {
		h["Cache-Control"] = headerNoStore
	}
	w.WriteHeader(status)
}

// DecodeJSON decodes the JSON request body into dst, reading at most
// DefaultMaxBodyBytes. See DecodeJSONLimit.
func DecodeJSON(r *http.Request, dst any) error {
	return DecodeJSONLimit(r, dst, DefaultMaxBodyBytes)
}

// DecodeJSONLimit decodes the JSON request body into dst, reading at most
// limit bytes. Client mistakes come back as *RequestError (400 malformed or
// empty, 413 too large, 415 form content type); any other error is a bug of
// the caller (dst not a pointer) and should become a 500.
//
// Unknown fields are allowed: clients written against the public wallet spec
// may send fields we do not model yet, and rejecting them would break them for
// no gain. The Content-Type is not required either, because many API clients
// omit it; only form encodings are refused, since such a body is never JSON
// and the specific message saves the client a puzzling "malformed JSON".
// Data after the first JSON value is rejected: `{"a":1}{"a":2}` is
// ambiguous, and silently using the first value hides client bugs.
func DecodeJSONLimit(r *http.Request, dst any, limit int64) error {
	if ct := r.Header.Get("Content-Type"); ct != "" {
		if mt, _, err := mime.ParseMediaType(ct); err == nil &&
			(mt == "application/x-www-form-urlencoded" || mt == "multipart/form-data") {
			return &RequestError{Status: http.StatusUnsupportedMediaType, Msg: "Content-Type must be application/json"}
		}
	}
	if r.Body == nil || r.Body == http.NoBody {
		return &RequestError{Status: http.StatusBadRequest, Msg: "request body must not be empty"}
	}
	// A nil ResponseWriter is fine: MaxBytesReader only uses it, when it
	// can, to ask the server to close the connection.
	body := http.MaxBytesReader(nil, r.Body, limit)
	// The body is read whole into a pooled buffer and, when it is one
	// JSON value, decoded in one go (by jsonv1: encoding/json, faster):
	// the stream decoder grows a buffer of its own by copying, about four
	// times the body's bytes. Any other body, or one whose read failed,
	// goes through the stream decoder (decodeStream), which then reads the
	// same bytes and the same read error and so answers as it always did.
	// After an error dst holds what the decodes set; callers discard it.
	buf := bodyBuffers.Get().(*bytes.Buffer)
	defer putBodyBuffer(buf)
	buf.Reset()
	_, rerr := buf.ReadFrom(body)
	if rerr == nil {
		var syntaxErr *json.SyntaxError
		switch err := jsonv1.Unmarshal(buf.Bytes(), dst); {
		case err == nil:
			// JSON spells a NUL only as the escape \u0000 (a raw one is
			// not JSON), so the walk over every field of dst (1.6% of the
			// wallet's CPU in the send row's profile) runs only for a body
			// that holds the escape, as RejectNUL parses only a query with
			// %00.
			if bytes.Contains(buf.Bytes(), nulEscape) && hasNUL(reflect.ValueOf(dst)) {
				return &RequestError{Status: http.StatusBadRequest, Msg: nulMessage}
			}
			return nil
		case !errors.As(err, &syntaxErr):
			return decodeError(err, limit)
		}
	}
	return decodeStream(io.MultiReader(bytes.NewReader(buf.Bytes()), errReader{rerr}), dst, limit)
}

// nulEscape is how a JSON text writes the NUL character.
var nulEscape = []byte(`\u0000`)

// decodeStream decodes the one JSON value body holds into dst with the
// stream decoder, which tells an empty body, trailing data and a body
// over the limit apart.
func decodeStream(body io.Reader, dst any, limit int64) error {
	dec := json.NewDecoder(body)
	if err := dec.Decode(dst); err != nil {
		return decodeError(err, limit)
	}
	// A second Decode must hit EOF; anything else (another value, garbage)
	// is trailing data. Whitespace is skipped by the decoder.
	var extra json.RawMessage
	switch err := dec.Decode(&extra); {
	case errors.Is(err, io.EOF):
		if hasNUL(reflect.ValueOf(dst)) {
			return &RequestError{Status: http.StatusBadRequest, Msg: nulMessage}
		}
		return nil
	case err == nil:
		return &RequestError{Status: http.StatusBadRequest, Msg: "malformed JSON: unexpected data after the top-level value"}
	default:
		var maxErr *http.MaxBytesError
		if errors.As(err, &maxErr) {
			return decodeError(err, limit)
		}
		return &RequestError{Status: http.StatusBadRequest, Msg: "malformed JSON: unexpected data after the top-level value", err: err}
	}
}

// bodyBuffers hold request bodies while DecodeJSONLimit decodes them;
// what it decodes copies what it keeps (json.Unmarshaler's rule).
var bodyBuffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// maxPooledBody is the largest buffer kept for the next body.
const maxPooledBody = 64 << 10

func putBodyBuffer(b *bytes.Buffer) {
	if b.Cap() <= maxPooledBody {
		bodyBuffers.Put(b)
	}
}

// errReader reads nothing and returns err, io.EOF when err is nil: the
// end of a body read before.
type errReader struct{ err error }

func (r errReader) Read([]byte) (int, error) {
	if r.err == nil {
		return 0, io.EOF
	}
	return 0, r.err
}

// decodeError turns an encoding/json error into a *RequestError whose message
// tells the client what to fix, or passes programming errors through.
func decodeError(err error, limit int64) error {
	var (
		syntaxErr *json.SyntaxError
		typeErr   *json.UnmarshalTypeError
		maxErr    *http.MaxBytesError
		invalid   *json.InvalidUnmarshalError
	)
	switch {
	case errors.As(err, &invalid):
		return fmt.Errorf("decode JSON: %w", err)
	case errors.As(err, &maxErr):
		return &RequestError{Status: http.StatusRequestEntityTooLarge,
			Msg: fmt.Sprintf("request body too large (limit %d bytes)", limit), err: err}
	case errors.Is(err, io.EOF):
		return &RequestError{Status: http.StatusBadRequest, Msg: "request body must not be empty", err: err}
	case errors.Is(err, io.ErrUnexpectedEOF):
		return &RequestError{Status: http.StatusBadRequest, Msg: "malformed JSON: unexpected end of input", err: err}
	case errors.As(err, &syntaxErr):
		return &RequestError{Status: http.StatusBadRequest,
			Msg: fmt.Sprintf("malformed JSON: %s (at byte %d)", syntaxErr.Error(), syntaxErr.Offset), err: err}
	case errors.As(err, &typeErr):
		msg := fmt.Sprintf("malformed JSON: expected %s, got %s", jsonKind(typeErr.Type), typeErr.Value)
		if typeErr.Field != "" {
			msg = fmt.Sprintf("malformed JSON: field %q must be %s, got %s", typeErr.Field, jsonKind(typeErr.Type), typeErr.Value)
		}
		return &RequestError{Status: http.StatusBadRequest, Msg: msg, err: err}
	default:
		// Errors from a type's UnmarshalJSON (e.g. an invalid amount) or
		// from reading the body. Their text describes the value, not our
		// internals, so it is shown.
		return &RequestError{Status: http.StatusBadRequest, Msg: "malformed JSON: " + err.Error(), err: err}
	}
}

// jsonKind names a Go type in JSON terms, so messages say "a string" rather
// than leaking Go type names like coin.Amount.
func jsonKind(t reflect.Type) string {
	if t == nil {
		return "a valid value"
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Struct, reflect.Map:
		return "an object"
	default:
		return "a valid value"
	}
}
