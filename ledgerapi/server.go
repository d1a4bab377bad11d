// Package ledgerapi serves the JSON Ledger API v2 (Canton's, as bundled
// with Splice; shared/specs/ledger-api-v2.yaml) over the ledger, on its own
// listener. It owns the Server, its one route table (Handler, naming every
// route), authentication, the reads (ledger end, active contracts with
// template and interface filters, events by contract, updates), the
// commands (the command table, command_routes.go: the token standard's
// transfer commands and the coin's own choices, submitted and waited for,
// or asynchronously) and their completions, and what each WebSocket stream
// sends (streamkinds.go). Its sub-packages provide the other routes'
// handlers: identity (version, parties, users and rights), interactive
// (the interactive submission) and streams (the WebSockets); they take what
// they need from the Server when it builds them. It decodes, checks the
// caller's rights, calls the ledger and encodes, in Canton's JSON shapes
// and errors (internal/canton); the rules live in package ledger.
package ledgerapi

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/devnet"
	"github.com/ccwallet/ccwallet/ledger/impersonation"
	"github.com/ccwallet/ccwallet/ledger/userrights"
	"github.com/ccwallet/ccwallet/ledger/users"
	"github.com/ccwallet/ccwallet/ledger/workflows"
	"github.com/ccwallet/ccwallet/ledgerapi/identity"
	"github.com/ccwallet/ccwallet/ledgerapi/interactive"
	"github.com/ccwallet/ccwallet/ledgerapi/internal/canton"
	"github.com/ccwallet/ccwallet/ledgerapi/streams"
	"github.com/ccwallet/ccwallet/web"
)

// Version is the Ledger API version this server answers as (Canton's,
// as bundled with Splice 0.4.15).
const Version = identity.Version

// Config is what the server needs beyond the ledger.
type Config struct {
	// Auth verifies bearer tokens, as on the app port (sub = user id).
	Auth *web.Verifier
	// Observe is extra middleware (e.g. web.Metrics) inside RequestID and
	// Logger.
	Observe []web.Middleware
	// Limiter bounds each user's request rate; nil means no limit.
	Limiter *web.Limiter
	// Workflows are the ledger's workflow packages (cmd builds them once);
	// nil builds them (workflows.New), for tests.
	Workflows *workflows.Set
	// Streams bounds the WebSocket streams (ledgerapi/streams).
	Streams streams.Config
	// DurableAsync keeps every accepted asynchronous submission in the
	// database before answering it, so a crash loses none (durable.go).
	DurableAsync bool
}

// Server serves the Ledger API.
type Server struct {
	l    *ledger.Ledger
	log  *slog.Logger
	auth *web.Verifier
	obs  []web.Middleware
	lim  *web.Limiter
	// async bounds the asynchronous submissions running (a token each);
	// running counts them, for Wait.
	async   chan struct{}
	running sync.WaitGroup
	// w are the ledger's workflow packages (Config.Workflows).
	w *workflows.Set
	// identity serves the identity routes (ledgerapi/identity).
	identity *identity.Service
	// interactive serves the interactive submission
	// (ledgerapi/interactive).
	interactive *interactive.Service
	// streams serves the WebSocket streams (ledgerapi/streams; their
	// kinds are streamkinds.go's).
	streams *streams.Hub
	// inflight are the submissions running (inflight.go).
	inflight inFlight
	// beforeRun, set by tests, runs before each submission's command.
	beforeRun atomic.Pointer[func()]
	// dur is the state of durable asynchronous submissions, nil when
	// they are off (durable.go).
	dur *durable
}

// New builds the server.
func New(l *ledger.Ledger, cfg Config, log *slog.Logger) *Server {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	w := cfg.Workflows
	if w == nil {
		w = workflows.New(l)
	}
	s := &Server{l: l, log: log, auth: cfg.Auth, obs: cfg.Observe, lim: cfg.Limiter, async: make(chan struct{}, maxAsync), w: w}
	s.identity = identity.New(l, w)
	s.interactive = interactive.New(l, w, interactive.Commands{
		Supported: supportedCommands, Prepares: servedChoice, Creates: preparedCreate, Nonconsuming: coinNonconsuming,
		Precheck: s.precheck, Submit: s.submitExecuted,
	})
	s.streams = streams.New(l, log, cfg.Limiter, streams.Auth{Token: s.authenticateToken, Claims: s.callerFor}, cfg.Streams)
	if cfg.DurableAsync {
		s.startDurable()
	}
	return s
}

// apiFunc is a handler; a returned error becomes a JsCantonError.
type apiFunc func(w http.ResponseWriter, r *http.Request, c *canton.Caller) error

// Handler returns the Ledger API's routes.
func (s *Server) Handler() http.Handler {
	mux := &routeTable{ServeMux: http.NewServeMux()}
	rd := reads{s}      // the reads' routes (reads.go)
	id := s.identity    // the identity routes (ledgerapi/identity)
	is := s.interactive // the interactive submission (ledgerapi/interactive)
	mux.Handle("GET /v2/version", s.api(id.GetVersion))
	mux.Handle("GET /v2/parties", s.api(id.ListParties))
	mux.Handle("POST /v2/parties", s.api(id.AllocateParty))
	mux.Handle("GET /v2/parties/participant-id", s.api(id.GetParticipantID))
	mux.Handle("GET /v2/parties/{party}", s.api(id.GetParty))
	mux.Handle("POST /v2/parties/external/generate-topology", s.api(id.GenerateExternalTopology))
	mux.Handle("POST /v2/parties/external/allocate", s.api(id.AllocateExternalParty))
	mux.Handle("GET /v2/packages", s.api(id.ListPackages))
	mux.Handle("GET /v2/users", s.api(id.ListUsers))
	mux.Handle("POST /v2/users", s.api(id.CreateUser))
	mux.Handle("GET /v2/users/{userId}", s.api(id.GetUser))
	mux.Handle("GET /v2/users/{userId}/rights", s.api(id.ListUserRights))
	mux.Handle("POST /v2/users/{userId}/rights", s.api(id.GrantRights))
	mux.Handle("PATCH /v2/users/{userId}/rights", s.api(id.RevokeRights))
	mux.Handle("PATCH /v2/users/{userId}", s.api(id.UpdateUser))
	mux.Handle("DELETE /v2/users/{userId}", s.api(id.DeleteUser))
	mux.Handle("GET /v2/state/ledger-end", s.api(rd.getLedgerEnd))
	mux.Handle("GET /v2/state/latest-pruned-offsets", s.api(rd.getPrunedOffsets))
	mux.Handle("GET /v2/state/connected-synchronizers", s.api(rd.getConnectedSynchronizers))
	mux.Handle("POST /v2/interactive-submission/prepare", s.api(is.PrepareSubmission))
	mux.Handle("POST /v2/interactive-submission/execute", s.api(is.ExecuteSubmission))
	mux.Handle("GET /v2/interactive-submission/preferred-package-version", s.api(is.PreferredPackageVersion))
	mux.Handle("POST /v2/interactive-submission/preferred-packages", s.api(is.PreferredPackages))
	mux.Handle("POST /v2/state/active-contracts", s.api(rd.activeContracts))
	mux.Handle("POST /v2/events/events-by-contract-id", s.api(rd.eventsByContractID))
	mux.Handle("POST /v2/updates/flats", s.api(rd.updateFlats))
	mux.Handle("POST /v2/updates/trees", s.api(rd.updateTrees))
	mux.Handle("GET /v2/updates/transaction-tree-by-id/{updateId}", s.api(rd.transactionTreeByID))
	mux.Handle("GET /v2/updates/transaction-tree-by-offset/{offset}", s.api(rd.transactionTreeByOffset))
	mux.Handle("POST /v2/updates/transaction-by-id", s.api(rd.transactionByID))
	mux.Handle("POST /v2/updates/transaction-by-offset", s.api(rd.transactionByOffset))
	mux.Handle("POST /v2/updates/update-by-id", s.api(rd.updateByID))
	mux.Handle("POST /v2/updates/update-by-offset", s.api(rd.updateByOffset))
	mux.Handle("POST /v2/commands/submit-and-wait", s.api(s.submitAndWait))
	mux.Handle("POST /v2/commands/submit-and-wait-for-transaction", s.api(s.submitAndWaitForTransaction))
	mux.Handle("GET /docs/openapi", s.openAPI(mux.ServeMux))
	mux.Handle("POST /v2/commands/async/submit", s.api(s.asyncSubmit))
	mux.Handle("POST /v2/commands/completions", s.api(s.completions))
	mux.Handle("POST /v2/updates", s.api(rd.updateFlats)) // 3.4's name of the list
	mux.HandleStream("/v2/updates", s.streams.Handler(func() streams.Kind { return &updatesStream{s: s} }))
	mux.HandleStream("/v2/updates/flats", s.streams.Handler(func() streams.Kind { return &updatesStream{s: s} }))
	mux.HandleStream("/v2/updates/trees", s.streams.Handler(func() streams.Kind { return &updatesStream{s: s, trees: true} }))
	mux.HandleStream("/v2/commands/completions", s.streams.Handler(func() streams.Kind { return &completionsStream{s: s} }))
	mux.HandleStream("/v2/state/active-contracts", s.streams.Handler(func() streams.Kind { return &acsStream{s: s} }))
	mux.Handle("/", s.api(s.unsupported(mux)))
	mws := append([]web.Middleware{web.RequestID, web.Logger(s.log)}, s.obs...)
	return web.Chain(mux.ServeMux, append(mws, web.Recover(s.log), web.SecurityHeaders)...)
}

// unsupported answers every other path: 501 for the rest of the Ledger
// API, with what is supported, and 404 for paths outside it.
func (s *Server) unsupported(mux *routeTable) apiFunc {
	return func(w http.ResponseWriter, r *http.Request, _ *canton.Caller) error {
		if _, pattern := mux.Handler(r); pattern != "/" && pattern != "" {
			return canton.Err(canton.CodeInvalidArgument, "%s is not allowed on %s", r.Method, r.URL.Path)
		}
		if strings.HasPrefix(r.URL.Path, "/v2/") {
			return canton.Err(canton.CodeUnsupported, "%s %s is not supported by this participant; supported: %s", r.Method, r.URL.Path, mux.supported())
		}
		return canton.Err(canton.CodeNotFound, "no such path: %s", r.URL.Path)
	}
}

// api authenticates the caller (401 without a valid token, 403 for a
// user the ledger does not know), lets it in past a development
// network's restore gate (Ledger.Admit, as the app port's restoreGate
// does) and renders a returned error.
func (s *Server) api(fn apiFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := s.authenticate(r)
		if err == nil {
			if ok, retry := s.lim.Allow("user:" + c.User.Name); !ok {
				web.RetryAfter(w, retry)
				err = canton.Err(canton.CodeBackpressure, "user %q sends requests faster than this participant allows; retry in %s", c.User.Name, retry.Round(time.Second))
			} else if done, aerr := s.l.Admit(); aerr != nil {
				err = aerr // a development network being restored: 503, retry
			} else {
				defer done()
				if c.Actor != "" {
					r = r.WithContext(impersonation.ActingAs(r.Context(), c.Actor))
				}
				err = fn(w, r, c)
			}
		}
		if err != nil {
			var de *canton.DecodeError
			if errors.As(err, &de) {
				// Canton answers a body it cannot decode with 400 text/plain.
				w.Header().Set("Content-Type", "text/plain; charset=utf-8")
				w.WriteHeader(de.Status)
				fmt.Fprintf(w, "Invalid value for: body (%s)", de.Msg)
				return
			}
			canton.WriteError(s.log, w, r, err)
		}
	})
}

func (s *Server) authenticate(r *http.Request) (*canton.Caller, error) {
	c, _, err := s.authenticateToken(r.Context(), canton.RequestToken(r))
	return c, err
}

// authenticateToken is authenticate for a token (canton.RequestToken's), with
// the token's claims.
func (s *Server) authenticateToken(ctx context.Context, raw string) (*canton.Caller, web.Claims, error) {
	if raw == "" {
		return nil, web.Claims{}, canton.Err(canton.CodeUnauthenticated, "send a token as Authorization: Bearer <token> (or, on a WebSocket, as the subprotocol jwt.token.<token>)")
	}
	if s.auth == nil {
		return nil, web.Claims{}, canton.Err(canton.CodeUnauthenticated, "authentication is not configured")
	}
	claims, err := s.auth.Verify(ctx, raw)
	if err != nil {
		return nil, claims, canton.Err(canton.CodeUnauthenticated, "%s", err.Error())
	}
	c, err := s.callerFor(ctx, claims)
	return c, claims, err
}

// callerFor is the caller the verified claims name, with its rights.
func (s *Server) callerFor(ctx context.Context, claims web.Claims) (*canton.Caller, error) {
	u, err := users.Of(s.l).Get(ctx, claims.Subject)
	if err != nil {
		return nil, err
	}
	if !u.Onboarded && !u.IsAdmin {
		return nil, canton.PermissionDenied("user %q is not a user of this participant; onboard it first", claims.Subject)
	}
	// Read on every call, so a revoked right or a deactivation takes
	// effect on the next one.
	rs, err := s.w.UserRights.RightsOf(ctx, u)
	if err != nil {
		return nil, err
	}
	if rs.Deactivated {
		return nil, canton.PermissionDenied("user %q is deactivated", claims.Subject)
	}
	c := canton.CallerOf(u, rs)
	if claims.ActAs != "" {
		// A development network's impersonation: the admin acts (and
		// reads) as the party the token names, and only as it.
		party := coin.PartyID(claims.ActAs)
		if err := s.w.Devnet.Impersonate(ctx, claims.Subject, party); err != nil {
			return nil, canton.PermissionDenied("%s", err.Error())
		}
		c.ActAs, c.ReadAs, c.ReadAny, c.ExecuteAny, c.Actor = []coin.PartyID{party}, nil, false, false, claims.Subject
		// The admin's own rights stay home (devnet.IsAdminAs): the token
		// holds the party's act-as right alone.
		c.Admin = devnet.IsAdminAs(s.l, claims.Subject, claims.ActAs)
		c.Rights.Rights = []userrights.Right{{Kind: userrights.RightCanActAs, Party: party}}
	}
	return c, nil
}
