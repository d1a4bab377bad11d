package ledgerapi

import (
	"context"
	"net/http"
	"strconv"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger/apiread"
	"github.com/ccwallet/ccwallet/ledger/commands"
	"github.com/ccwallet/ccwallet/ledgerapi/internal/canton"
)

// Asynchronous submission and completions: POST /v2/commands/async/submit
// answers {} once the submission passed its checks and runs the command
// on its own; POST /v2/commands/completions reads the outcomes, of these
// and of the submit-and-wait commands alike, which the ledger stores with
// each command (commands.Completion).

const (
	// maxAsync bounds the asynchronous submissions running at once; more
	// are refused with PARTICIPANT_BACKPRESSURE.
	maxAsync = 64
	// asyncTimeout bounds one asynchronous submission's run.
	asyncTimeout = time.Minute
	// defaultIdle and maxIdle bound how long completions waits for an
	// asynchronous submission still running when it found none
	// (stream_idle_timeout_ms, as Canton's 500 ms default).
	defaultIdle = 500 * time.Millisecond
	maxIdle     = 5 * time.Second
)

// Wait ends the WebSocket streams (close 1001: the server stops after
// its listener) and waits for the asynchronous submissions running to
// finish (before the ledger closes), each at most asyncTimeout.
func (s *Server) Wait() {
	s.streams.Stop()
	s.stopDurable() // no sweep starts another
	s.running.Wait()
}

// asyncSubmit is POST /v2/commands/async/submit.
func (s *Server) asyncSubmit(w http.ResponseWriter, r *http.Request, c *canton.Caller) error {
	var cmds jsCommands
	if err := canton.Decode(r, &cmds); err != nil {
		return err
	}
	if err := s.refuseUnsigned(r, c, cmds.ActAs); err != nil {
		return err
	}
	sb, err := s.check(c, &cmds)
	if err != nil {
		return err
	}
	// The command outlives the request, so it holds its own place past
	// the restore gate.
	done, err := s.l.Admit()
	if err != nil {
		return err
	}
	select {
	case s.async <- struct{}{}:
	default:
		done()
		return canton.Err(canton.CodeBackpressure, "%d asynchronous submissions are running; retry shortly", maxAsync)
	}
	// Kept before it is answered, when durable (durable.go).
	var kept int64
	if s.dur != nil {
		if kept, err = s.keep(r, c, &cmds); err != nil {
			<-s.async
			done()
			return err
		}
	}
	// The command outlives the request; its outcome goes to completions.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(r.Context()), asyncTimeout)
	run := r.WithContext(ctx)
	s.running.Add(1)
	go func() {
		defer func() { <-s.async; cancel(); done(); s.running.Done() }()
		_, err := s.execute(run, sb)
		if err != nil && canton.Of(err).Code == canton.CodeInternal {
			s.log.ErrorContext(ctx, "ledger api: asynchronous submission failed", "command_id", sb.commandID, "err", err)
		}
		if kept != 0 {
			s.settle(kept, err)
		}
	}()
	return canton.WriteJSON(w, struct{}{})
}

// completionsRequest is CompletionStreamRequest.
type completionsRequest struct {
	UserID         string   `json:"userId"`
	Parties        []string `json:"parties"`
	BeginExclusive *int64   `json:"beginExclusive"`
}

// completions is POST /v2/commands/completions: the caller's completions
// after beginExclusive for the parties, then an OffsetCheckpoint at the
// ledger end when there is room.
func (s *Server) completions(w http.ResponseWriter, r *http.Request, c *canton.Caller) error {
	limit, err := listLimit(r)
	if err != nil {
		return err
	}
	if limit == 0 {
		limit = apiread.MaxAPIPage
	}
	idle := defaultIdle
	if v := r.URL.Query().Get("stream_idle_timeout_ms"); v != "" {
		ms, err := strconv.ParseInt(v, 10, 64)
		if err != nil || ms < 0 {
			return &canton.DecodeError{Status: http.StatusBadRequest, Msg: "stream_idle_timeout_ms: want a non-negative whole number, not " + strconv.Quote(v)}
		}
		idle = min(time.Duration(ms)*time.Millisecond, maxIdle)
	}
	var req completionsRequest
	if err := canton.Decode(r, &req); err != nil {
		return err
	}
	parties, begin, err := req.parse(c)
	if err != nil {
		return err
	}
	cs, end, err := s.completionsOf(r.Context(), c.User.Name, parties, begin, limit)
	// An asynchronous submission still running completes soon: wait for
	// it a little, as Canton's stream waits its idle timeout.
	for deadline := time.Now().Add(idle); err == nil && len(cs) == 0 && len(s.async) > 0 && time.Now().Before(deadline); {
		select {
		case <-r.Context().Done():
			return r.Context().Err()
		case <-time.After(20 * time.Millisecond):
		}
		cs, end, err = s.completionsOf(r.Context(), c.User.Name, parties, begin, limit)
	}
	if err != nil {
		return err
	}
	out := make([]map[string]any, 0, len(cs)+1)
	for _, cp := range cs {
		out = append(out, s.completionMessage(cp))
	}
	if len(out) < limit {
		// The end the page was read up to: a checkpoint past it could
		// skip a completion of a lower offset that commits later.
		last := begin
		if len(cs) > 0 {
			last = cs[len(cs)-1].Offset
		}
		if end > last {
			out = append(out, s.completionCheckpoint(end))
		}
	}
	return canton.WriteJSON(w, out)
}

// parse checks the request for c: whose completions, after which offset.
func (q *completionsRequest) parse(c *canton.Caller) ([]coin.PartyID, int64, error) {
	if q.UserID != "" && q.UserID != c.User.Name {
		return nil, 0, canton.PermissionDenied("userId %q is not the token's user %q", q.UserID, c.User.Name)
	}
	if len(q.Parties) == 0 {
		return nil, 0, canton.Err(canton.CodeMissingField, "parties: give the parties whose completions to read")
	}
	if len(q.Parties) > commands.MaxCompletionActAs {
		return nil, 0, canton.InvalidArgument("parties: at most %d parties", commands.MaxCompletionActAs)
	}
	parties := make([]coin.PartyID, len(q.Parties))
	for i, a := range q.Parties {
		p, err := canton.ParseParty("parties", a)
		if err != nil {
			return nil, 0, err
		}
		if err := c.RequireRead(p); err != nil {
			return nil, 0, err
		}
		parties[i] = p
	}
	var begin int64
	if q.BeginExclusive != nil {
		begin = *q.BeginExclusive
	}
	return parties, begin, nil
}

// completionMessage is a CompletionStreamResponse with cp.
func (s *Server) completionMessage(cp commands.Completion) map[string]any {
	return map[string]any{"completionResponse": map[string]any{"Completion": map[string]any{"value": s.completionJSON(cp)}}}
}

// completionCheckpoint is a CompletionStreamResponse with an
// OffsetCheckpoint at offset.
func (s *Server) completionCheckpoint(offset int64) map[string]any {
	return map[string]any{"completionResponse": map[string]any{"OffsetCheckpoint": s.offsetCheckpoint(offset)}}
}

// syncTime is SynchronizerTime.
type syncTime struct {
	SynchronizerID string `json:"synchronizerId"`
	RecordTime     string `json:"recordTime"`
}

// unknownFields is the empty UnknownFieldSet protobuf messages carry.
var unknownFields = map[string]any{"fields": map[string]any{}}

// completionJSON is Completion's value.
func (s *Server) completionJSON(c commands.Completion) map[string]any {
	actAs := make([]string, len(c.ActAs))
	for i, p := range c.ActAs {
		actAs[i] = string(p)
	}
	return map[string]any{
		"commandId": c.CommandID,
		"status":    map[string]any{"code": c.Code, "message": c.Message, "details": []any{}, "unknownFields": unknownFields},
		"updateId":  c.UpdateID, "userId": c.UserID, "actAs": actAs, "submissionId": c.SubmissionID,
		// The period applied: the ledger deduplicates every command over
		// its window.
		"deduplicationPeriod": map[string]any{"DeduplicationDuration": map[string]any{"value": map[string]any{
			"seconds": commands.DeduplicationWindow, "nanos": 0, "unknownFields": unknownFields}}},
		"offset":           c.Offset,
		"synchronizerTime": syncTime{s.l.SynchronizerID(), canton.FormatTime(c.RecordTime)},
	}
}
