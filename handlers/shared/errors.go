package shared

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/fault"
	"github.com/ccwallet/ccwallet/web"
)

// statusError lets a handler pick a status for an error the domain does not
// know about (a bad path parameter, say).
type statusError struct {
	status int
	msg    string
}

func (e *statusError) Error() string { return e.msg }

// Error is an error answered with status and msg as they are.
func Error(status int, msg string) error { return &statusError{status: status, msg: msg} }

// BadRequest is a 400 with msg.
func BadRequest(msg string) error { return Error(http.StatusBadRequest, msg) }

// Forbidden is a 403 with msg.
func Forbidden(msg string) error { return Error(http.StatusForbidden, msg) }

// NotFound is a 404 with msg.
func NotFound(msg string) error { return Error(http.StatusNotFound, msg) }

// errorStatuses is the one table from domain errors to HTTP statuses,
// checked in order with errors.Is.
var errorStatuses = []struct {
	err    error
	status int
}{
	{fault.ErrNotFound, http.StatusNotFound},
	{fault.ErrForbidden, http.StatusForbidden},
	{fault.ErrInFlight, http.StatusTooManyRequests},
	{fault.ErrDuplicate, http.StatusConflict},
	{fault.ErrConflict, http.StatusConflict},
	{fault.ErrExpired, http.StatusConflict},
	// The real wallet answers 400 for a transfer it cannot fund.
	{fault.ErrInsufficientFunds, http.StatusBadRequest},
	{fault.ErrDisabled, http.StatusNotImplemented},
	{ledger.ErrForgedBlob, http.StatusBadRequest},
	{coin.ErrInvalidAmount, http.StatusBadRequest},
	{coin.ErrInvalidPartyID, http.StatusBadRequest},
	{coin.ErrInvalidContractID, http.StatusBadRequest},
	{fault.ErrUnavailable, http.StatusServiceUnavailable},
	{context.DeadlineExceeded, http.StatusServiceUnavailable},
}

// Status maps an error to its HTTP status and the message the client sees.
// 5xx messages are generic: the detail goes to the log, not the client.
func Status(err error) (int, string) {
	var se *statusError
	if errors.As(err, &se) {
		return se.status, se.msg
	}
	var re *web.RequestError
	if errors.As(err, &re) {
		return re.Status, re.Msg
	}
	if fault.IsValidation(err) {
		return http.StatusBadRequest, err.Error()
	}
	var p *fault.Problem
	if errors.As(err, &p) {
		status, _ := Status(p.Err)
		return status, p.Msg
	}
	for _, e := range errorStatuses {
		if errors.Is(err, e.err) {
			switch e.status {
			case http.StatusServiceUnavailable:
				return e.status, "The service is temporarily unavailable; retry shortly."
			default:
				return e.status, err.Error()
			}
		}
	}
	return http.StatusInternalServerError, "An unexpected error occurred."
}

// WriteError answers err as {"error": ...}, logging server-side failures
// once, here, where they are handled.
func WriteError(log *slog.Logger, w http.ResponseWriter, r *http.Request, err error) {
	if ClientGone(log, r, err) {
		return
	}
	status, msg := Status(err)
	if status >= 500 {
		log.ErrorContext(r.Context(), "request failed", "method", r.Method, "path", r.URL.Path, "status", status, "err", err,
			"request_id", web.RequestIDFrom(r.Context()))
	}
	web.WriteError(w, status, msg)
}

// ClientGone reports (and logs at debug level) a request whose client went
// away before it was answered: a closed tab or a stream's reconnect is not
// a server error, and there is no one left to answer. Its failure is most
// likely the cancelled context itself, so it is logged only for debugging.
func ClientGone(log *slog.Logger, r *http.Request, err error) bool {
	if r.Context().Err() == nil {
		return false
	}
	log.DebugContext(r.Context(), "client went away", "method", r.Method, "path", r.URL.Path, "err", err,
		"request_id", web.RequestIDFrom(r.Context()))
	return true
}

// NotYours turns the ledger's "only the sender may" into 404: to the
// caller's wallet, a subscription it does not pay does not exist.
func NotYours(err error) error {
	if errors.Is(err, fault.ErrForbidden) {
		return fmt.Errorf("%w: no subscription request or subscription of yours has this contract id", fault.ErrNotFound)
	}
	return err
}
