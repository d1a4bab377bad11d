package ledgerapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/apiread"
	"github.com/ccwallet/ccwallet/ledger/userrights"
	"github.com/ccwallet/ccwallet/web"
)

// Errors are Canton's JsCantonError: an error code, its category (which
// gives the gRPC code, and that the HTTP status) and a cause.

// category is a Canton ErrorCategory.
type category int

// Canton's error categories (base/error/ErrorCategory.scala).
const (
	catTransient              category = 1
	catContention             category = 2
	catInternal               category = 4
	catUnauthenticated        category = 6
	catInsufficientPermission category = 7
	catInvalidIndependent     category = 8
	catInvalidGivenState      category = 9
	catResourceExists         category = 10
	catResourceMissing        category = 11
	catSeekAfterEnd           category = 12
	catUnsupported            category = 14
)

// gRPC status codes.
const (
	grpcInvalidArgument    = 3
	grpcNotFound           = 5
	grpcAlreadyExists      = 6
	grpcPermissionDenied   = 7
	grpcFailedPrecondition = 9
	grpcAborted            = 10
	grpcOutOfRange         = 11
	grpcUnimplemented      = 12
	grpcInternal           = 13
	grpcUnavailable        = 14
	grpcUnauthenticated    = 16
)

// grpcOf is the gRPC code of each category.
var grpcOf = map[category]int{
	catTransient: grpcUnavailable, catContention: grpcAborted, catInternal: grpcInternal,
	catUnauthenticated: grpcUnauthenticated, catInsufficientPermission: grpcPermissionDenied,
	catInvalidIndependent: grpcInvalidArgument, catInvalidGivenState: grpcFailedPrecondition,
	catResourceExists: grpcAlreadyExists, catResourceMissing: grpcNotFound, catSeekAfterEnd: grpcOutOfRange,
	catUnsupported: grpcUnimplemented,
}

// httpOf is the HTTP status of each gRPC code, as the JSON API maps them.
var httpOf = map[int]int{
	grpcInvalidArgument: http.StatusBadRequest, grpcFailedPrecondition: http.StatusBadRequest, grpcOutOfRange: http.StatusBadRequest,
	grpcUnauthenticated: http.StatusUnauthorized, grpcPermissionDenied: http.StatusForbidden, grpcNotFound: http.StatusNotFound,
	grpcAborted: http.StatusConflict, grpcAlreadyExists: http.StatusConflict, grpcInternal: http.StatusInternalServerError,
	grpcUnimplemented: http.StatusNotImplemented, grpcUnavailable: http.StatusServiceUnavailable,
}

// errorCode is a Canton error code and its category.
type errorCode struct {
	id  string
	cat category
}

// The Canton error codes this API answers with.
var (
	codeInvalidArgument      = errorCode{"INVALID_ARGUMENT", catInvalidIndependent}
	codeMissingField         = errorCode{"MISSING_FIELD", catInvalidIndependent}
	codeUnauthenticated      = errorCode{"UNAUTHENTICATED", catUnauthenticated}
	codePermissionDenied     = errorCode{"PERMISSION_DENIED", catInsufficientPermission}
	codeContractNotFound     = errorCode{"CONTRACT_NOT_FOUND", catResourceMissing}
	codeEventsNotFound       = errorCode{"CONTRACT_EVENTS_NOT_FOUND", catResourceMissing}
	codeUpdateNotFound       = errorCode{"UPDATE_NOT_FOUND", catResourceMissing}
	codeUserNotFound         = errorCode{"USER_NOT_FOUND", catResourceMissing}
	codePartyNotKnown        = errorCode{"PARTY_NOT_KNOWN_ON_LEDGER", catResourceMissing}
	codePackageNamesNotFound = errorCode{"PACKAGE_NAMES_NOT_FOUND", catResourceMissing}
	codeTemplatesNotFound    = errorCode{"TEMPLATES_OR_INTERFACES_NOT_FOUND", catResourceMissing}
	codeUserAlreadyExists    = errorCode{"USER_ALREADY_EXISTS", catResourceExists}
	codePartyAlreadyExists   = errorCode{"PARTY_ALREADY_EXISTS", catResourceExists}
	codeDuplicateCommand     = errorCode{"DUPLICATE_COMMAND", catResourceExists}
	codeNotActive            = errorCode{"CONTRACT_NOT_ACTIVE", catResourceMissing}
	codeContention           = errorCode{"LOCAL_VERDICT_LOCKED_CONTRACTS", catContention}
	codeInFlight             = errorCode{"SUBMISSION_ALREADY_IN_FLIGHT", catContention}
	codeBackpressure         = errorCode{"PARTICIPANT_BACKPRESSURE", catContention}
	codeInterpretation       = errorCode{"DAML_INTERPRETATION_ERROR", catInvalidGivenState}
	codeAuthorization        = errorCode{"DAML_AUTHORIZATION_ERROR", catInvalidIndependent}
	codePruned               = errorCode{"PARTICIPANT_PRUNED_DATA_ACCESSED", catInvalidGivenState}
	codeAfterLedgerEnd       = errorCode{"OFFSET_AFTER_LEDGER_END", catSeekAfterEnd}
	codeUnsupported          = errorCode{"UNSUPPORTED_OPERATION", catUnsupported}
	codeUnavailable          = errorCode{"SERVICE_NOT_RUNNING", catTransient}
	codeInternal             = errorCode{"LEDGER_API_INTERNAL_ERROR", catInternal}
)

// cantonError is an error the API answers as a JsCantonError.
type cantonError struct {
	code      errorCode
	cause     string
	context   map[string]string
	resources [][2]string
}

func (e *cantonError) Error() string { return e.code.id + ": " + e.cause }

func cantonErr(code errorCode, format string, args ...any) *cantonError {
	return &cantonError{code: code, cause: fmt.Sprintf(format, args...)}
}

func invalidArgument(format string, args ...any) *cantonError {
	return cantonErr(codeInvalidArgument, format, args...)
}

func permissionDenied(format string, args ...any) *cantonError {
	return cantonErr(codePermissionDenied, format, args...)
}

// jsCantonError is the wire shape (JsCantonError in the spec). Optional
// fields without a value are left out: the spec does not allow null.
type jsCantonError struct {
	Code           string            `json:"code"`
	Cause          string            `json:"cause"`
	CorrelationID  string            `json:"correlationId,omitempty"`
	TraceID        string            `json:"traceId,omitempty"`
	Context        map[string]string `json:"context"`
	Resources      [][2]string       `json:"resources"`
	ErrorCategory  int               `json:"errorCategory"`
	GrpcCodeValue  int               `json:"grpcCodeValue"`
	RetryInfo      string            `json:"retryInfo,omitempty"`
	DefiniteAnswer *bool             `json:"definiteAnswer,omitempty"`
}

// asCanton maps an error from the ledger to its Canton error.
func asCanton(err error) *cantonError {
	var ce *cantonError
	if errors.As(err, &ce) {
		return ce
	}
	switch {
	case ledger.IsValidation(err), errors.Is(err, coin.ErrInvalidPartyID), errors.Is(err, coin.ErrInvalidContractID),
		errors.Is(err, coin.ErrInvalidAmount), errors.Is(err, ledger.ErrForgedBlob):
		return invalidArgument("%s", err.Error())
	case errors.Is(err, apiread.ErrPruned):
		return cantonErr(codePruned, "%s", err.Error())
	case errors.Is(err, apiread.ErrAfterLedgerEnd):
		return cantonErr(codeAfterLedgerEnd, "%s", err.Error())
	case errors.Is(err, ledger.ErrForbidden):
		return permissionDenied("%s", err.Error())
	case errors.Is(err, userrights.ErrUserNotFound):
		return cantonErr(codeUserNotFound, "%s", err.Error())
	case errors.Is(err, userrights.ErrPartyNotFound):
		return cantonErr(codePartyNotKnown, "%s", err.Error())
	case errors.Is(err, ledger.ErrNotFound):
		return cantonErr(codeContractNotFound, "%s", err.Error())
	case errors.Is(err, ledger.ErrDuplicate):
		return cantonErr(codeDuplicateCommand, "%s", err.Error())
	case errors.Is(err, ledger.ErrInFlight):
		return cantonErr(codeInFlight, "%s", err.Error())
	case errors.Is(err, ledger.ErrReassigning):
		return cantonErr(codeContention, "%s", err.Error())
	case errors.Is(err, ledger.ErrInsufficientFunds), errors.Is(err, ledger.ErrExpired), errors.Is(err, ledger.ErrRequirement):
		return cantonErr(codeInterpretation, "%s", err.Error())
	case errors.Is(err, ledger.ErrConflict):
		return cantonErr(codeNotActive, "%s", err.Error())
	case errors.Is(err, ledger.ErrUnavailable):
		return cantonErr(codeUnavailable, "the ledger is temporarily unavailable; retry shortly")
	}
	return cantonErr(codeInternal, "an unexpected error occurred")
}

// writeError answers err as a JsCantonError, logging server failures once.
func writeError(log *slog.Logger, w http.ResponseWriter, r *http.Request, err error) {
	ce := asCanton(err)
	grpc := grpcOf[ce.code.cat]
	status := httpOf[grpc]
	if status >= 500 && r.Context().Err() == nil {
		log.ErrorContext(r.Context(), "ledger api request failed", "method", r.Method, "path", r.URL.Path, "status", status, "err", err,
			"request_id", web.RequestIDFrom(r.Context()))
	}
	b, _ := json.Marshal(ce.body(web.RequestIDFrom(r.Context())))
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(b)
}

// body is e's JsCantonError, with the request's correlation id.
func (e *cantonError) body(correlationID string) jsCantonError {
	body := jsCantonError{
		Code: e.code.id, Cause: e.cause, Context: e.context, Resources: e.resources,
		ErrorCategory: int(e.code.cat), GrpcCodeValue: grpcOf[e.code.cat], CorrelationID: correlationID,
	}
	if body.Context == nil {
		body.Context = map[string]string{}
	}
	if body.Resources == nil {
		body.Resources = [][2]string{}
	}
	switch e.code.cat {
	case catTransient, catContention, catSeekAfterEnd:
		body.RetryInfo = "1 second"
	}
	return body
}
