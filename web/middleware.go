package web

import (
	"context"
	"log/slog"
	"net/http"
	"regexp"
	"runtime/debug"
	"time"

	"github.com/google/uuid"
)

// Middleware wraps a handler with cross-cutting behaviour.
type Middleware func(http.Handler) http.Handler

// Chain wraps h with mws so that the first middleware is the outermost:
// Chain(mux, RequestID, Logger(log), Recover(log), SecurityHeaders) runs
// RequestID first. That order is the recommended one: the request id exists
// before anything logs, Logger sees the status Recover chose for a panic, and
// no middleware between Logger and the mux copies the request, so the
// ServeMux's r.Pattern is visible to Logger after the call.
func Chain(h http.Handler, mws ...Middleware) http.Handler {
	for i := len(mws) - 1; i >= 0; i-- {
		h = mws[i](h)
	}
	return h
}

// RequestIDHeader is the header that carries the request id in both
// directions, so a client or proxy can correlate its logs with ours.
const RequestIDHeader = "X-Request-Id"

type requestIDKey struct{}

// RequestID takes the request id from X-Request-Id when the caller sent a
// sane one, or makes a new UUID, stores it in the context (see RequestIDFrom)
// and echoes it in the response. An incoming id that is too long or has odd
// characters is replaced rather than trusted, because it ends up in log lines.
func RequestID(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get(RequestIDHeader)
		if !validRequestID(id) {
			id = uuid.NewString()
		}
		w.Header().Set(RequestIDHeader, id)
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), requestIDKey{}, id)))
	})
}

// RequestIDFrom returns the request id stored by RequestID, or "" outside a
// request.
func RequestIDFrom(ctx context.Context) string {
	id, _ := ctx.Value(requestIDKey{}).(string)
	return id
}

func validRequestID(id string) bool {
	if id == "" || len(id) > 128 {
		return false
	}
	for _, c := range []byte(id) {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case c == '-', c == '_', c == '.', c == ':', c == '/', c == '+', c == '=':
		default:
			return false
		}
	}
	return true
}

// Logger logs one line per request: method, route pattern (or the path when
// no route matched), status, bytes, duration and request id. Headers are
// never logged: Authorization and Cookie carry credentials, and the query
// string is left out for the same reason.
func Logger(log *slog.Logger) Middleware {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			start := time.Now()
			rec := newStatusRecorder(w)
			next.ServeHTTP(rec, r)
			// ServeMux sets r.Pattern on the request it is given; that is
			// this r unless a middleware in between copied it.
			if !log.Enabled(r.Context(), slog.LevelInfo) {
				return // spare building the attributes nobody reads
			}
			path := r.Pattern
			if path == "" {
				path = r.URL.Path
			}
			// GroupAttrs, not Group: Group boxes each attribute in an
			// interface and copies them into a new slice, 7 allocations of
			// every request's 30 (the shipped binary's profile).
			log.LogAttrs(r.Context(), slog.LevelInfo, "request",
				slog.GroupAttrs("request",
					slog.String("method", r.Method),
					slog.String("path", path),
					slog.Int("status", rec.Status()),
					slog.Int64("bytes", rec.bytes),
					slog.Duration("duration", time.Since(start)),
					slog.String("id", RequestIDFrom(r.Context())),
				))
		})
	}
}

// Recover turns a panic into a 500 {"error": "An unexpected error occurred."}
// and logs the panic with its stack once. If the handler had already started
// the response there is nothing clean left to send, so only the log remains.
// http.ErrAbortHandler is re-panicked: it is the documented way for a handler
// to abort a response and the server handles it silently.
func Recover(log *slog.Logger) Middleware {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			rec := newStatusRecorder(w)
			defer func() {
				v := recover()
				if v == nil {
					return
				}
				if v == http.ErrAbortHandler {
					panic(v)
				}
				log.LogAttrs(r.Context(), slog.LevelError, "panic serving request",
					slog.Any("panic", v),
					slog.String("method", r.Method),
					slog.String("path", r.URL.Path),
					slog.String("request_id", RequestIDFrom(r.Context())),
					slog.String("stack", string(debug.Stack())),
				)
				if !rec.wroteHeader {
					WriteError(rec, http.StatusInternalServerError, internalErrorMsg)
				}
			}()
			next.ServeHTTP(rec, r)
		})
	}
}

// contentSecurityPolicy allows only our own origin: htmx, CSS and icons are
// served by us (package static), and data: images cover inline icons.
// form-action stays last: AllowFormAction adds a source to it.
const contentSecurityPolicy = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"frame-ancestors 'none'; base-uri 'self'; form-action 'self'"

// originRe is a bare http(s) origin, as a CSP source expression takes it.
var originRe = regexp.MustCompile(`^https?://[A-Za-z0-9.-]+(:[0-9]+)?$|^https?://\[[0-9A-Fa-f:.]+\](:[0-9]+)?$`)

// AllowFormAction lets the forms of the page w answers submit to origin
// as well as to our own (a form posted to us that redirects to origin
// counts as submitting there: browsers check form-action on redirects).
// Anything but a bare http(s) origin is ignored.
func AllowFormAction(w http.ResponseWriter, origin string) {
	if !originRe.MatchString(origin) {
		return
	}
	w.Header().Set("Content-Security-Policy", contentSecurityPolicy+" "+origin)
}

// SecurityHeaders sets the browser hardening headers on every response:
// no MIME sniffing, no framing (clickjacking), no cross-origin referrers, and
// a CSP that only allows our own origin.
func SecurityHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h["X-Content-Type-Options"] = headerNosniff
		h["Referrer-Policy"] = headerSameOrigin
		h["X-Frame-Options"] = headerDeny
		h["Content-Security-Policy"] = headerCSP
		next.ServeHTTP(w, r)
	})
}

// The values of the headers every response carries, shared by all: Set
// makes a slice for each value, four of a send's hundred-odd
// allocations for the same bytes every time. Shared is safe as net/http
// and Header's methods never write into a value's slice: Set and Del
// replace or drop it, and Add appends to a slice with no room left, so
// it copies. The keys are in canonical form, as Set would write them.
var (
	headerNosniff    = []string{"nosniff"}
	headerSameOrigin = []string{"same-origin"}
	headerDeny       = []string{"DENY"}
	headerCSP        = []string{contentSecurityPolicy}
	headerJSON       = []string{"application/json; charset=utf-8"}
	headerNoStore    = []string{"no-store"}
)

// statusRecorder remembers the status and size of a response. It implements
// http.Flusher and Unwrap so that server-sent events keep streaming through
// it and http.ResponseController still reaches the real connection.
type statusRecorder struct {
	http.ResponseWriter
	status      int
	bytes       int64
	wroteHeader bool
}

// newStatusRecorder records w's status and size, or is w when w is a
// recorder already: Logger, Metrics and Recover sit next to each other
// with nothing wrapping the writer between them, so they share one (two
// allocations a request fewer), and each reads the same status and size
// it would have recorded itself.
func newStatusRecorder(w http.ResponseWriter) *statusRecorder {
	if rec, ok := w.(*statusRecorder); ok {
		return rec
	}
	return &statusRecorder{ResponseWriter: w}
}

func (r *statusRecorder) WriteHeader(code int) {
	if r.wroteHeader {
		// Let net/http log its "superfluous WriteHeader" warning.
		r.ResponseWriter.WriteHeader(code)
		return
	}
	// 1xx responses (e.g. 103 Early Hints) are informational; the real
	// status comes later. 101 Switching Protocols is final.
	if code >= 200 || code == http.StatusSwitchingProtocols {
		r.status = code
		r.wroteHeader = true
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *statusRecorder) Write(b []byte) (int, error) {
	if !r.wroteHeader {
		r.status = http.StatusOK
		r.wroteHeader = true
	}
	n, err := r.ResponseWriter.Write(b)
	r.bytes += int64(n)
	return n, err
}

// Flush sends buffered data to the client; a flush commits a 200 status.
func (r *statusRecorder) Flush() {
	if !r.wroteHeader {
		r.status = http.StatusOK
		r.wroteHeader = true
	}
	_ = http.NewResponseController(r.ResponseWriter).Flush()
}

// Unwrap lets http.ResponseController find the underlying writer (for
// deadlines, hijacking, full duplex).
func (r *statusRecorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// Status is the response status, 200 when the handler wrote nothing (that is
// what net/http sends then).
func (r *statusRecorder) Status() int {
	if r.status == 0 {
		return http.StatusOK
	}
	return r.status
}

// WithRequestID returns ctx carrying request id id, as RequestID stores
// it: for work that outlives its request and is resumed later.
func WithRequestID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, requestIDKey{}, id)
}
