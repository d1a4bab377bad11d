// Package canton holds what the Ledger API's packages (ledgerapi and its
// sub-packages) share: Canton's JsCantonError (its error codes with their
// categories, gRPC codes and HTTP statuses, and the ledger's errors mapped
// to them), the authenticated caller with its rights, and the decoding of
// request bodies and encoding of answers as Canton's JSON API does.
package canton

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/apiread"
	"github.com/ccwallet/ccwallet/ledger/fault"
	"github.com/ccwallet/ccwallet/ledger/userrights"
	"github.com/ccwallet/ccwallet/web"
)

// Errors are Canton's JsCantonError: an error code, its Category (which
// gives the gRPC code, and that the HTTP status) and a cause.

// Category is a Canton ErrorCategory.
type Category int

// Canton's error categories (base/error/ErrorCategory.scala).
const (
	CatTransient              Category = 1
	CatContention             Category = 2
	CatInternal               Category = 4
	CatUnauthenticated        Category = 6
	CatInsufficientPermission Category = 7
	CatInvalidIndependent     Category = 8
	CatInvalidGivenState      Category = 9
	CatResourceExists         Category = 10
	CatResourceMissing        Category = 11
	CatSeekAfterEnd           Category = 12
	CatUnsupported            Category = 14
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

// grpcOf is the gRPC code of each Category.
var grpcOf = map[Category]int{
	CatTransient: grpcUnavailable, CatContention: grpcAborted, CatInternal: grpcInternal,
	CatUnauthenticated: grpcUnauthenticated, CatInsufficientPermission: grpcPermissionDenied,
	CatInvalidIndependent: grpcInvalidArgument, CatInvalidGivenState: grpcFailedPrecondition,
	CatResourceExists: grpcAlreadyExists, CatResourceMissing: grpcNotFound, CatSeekAfterEnd: grpcOutOfRange,
	CatUnsupported: grpcUnimplemented,
}

// httpOf is the HTTP status of each gRPC code, as the JSON API maps them.
var httpOf = map[int]int{
	grpcInvalidArgument: http.StatusBadRequest, grpcFailedPrecondition: http.StatusBadRequest, grpcOutOfRange: http.StatusBadRequest,
	grpcUnauthenticated: http.StatusUnauthorized, grpcPermissionDenied: http.StatusForbidden, grpcNotFound: http.StatusNotFound,
	grpcAborted: http.StatusConflict, grpcAlreadyExists: http.StatusConflict, grpcInternal: http.StatusInternalServerError,
	grpcUnimplemented: http.StatusNotImplemented, grpcUnavailable: http.StatusServiceUnavailable,
}

// Code is a Canton error code and its Category.
type Code struct {
	ID  string
	Cat Category
}

// The Canton error codes this API answers with.
var (
	CodeInvalidArgument      = Code{"INVALID_ARGUMENT", CatInvalidIndependent}
	CodeMissingField         = Code{"MISSING_FIELD", CatInvalidIndependent}
	CodeUnauthenticated      = Code{"UNAUTHENTICATED", CatUnauthenticated}
	CodePermissionDenied     = Code{"PERMISSION_DENIED", CatInsufficientPermission}
	CodeContractNotFound     = Code{"CONTRACT_NOT_FOUND", CatResourceMissing}
	CodeEventsNotFound       = Code{"CONTRACT_EVENTS_NOT_FOUND", CatResourceMissing}
	CodeUpdateNotFound       = Code{"UPDATE_NOT_FOUND", CatResourceMissing}
	CodeUserNotFound         = Code{"USER_NOT_FOUND", CatResourceMissing}
	CodePartyNotKnown        = Code{"PARTY_NOT_KNOWN_ON_LEDGER", CatResourceMissing}
	CodePackageNamesNotFound = Code{"PACKAGE_NAMES_NOT_FOUND", CatResourceMissing}
	CodeTemplatesNotFound    = Code{"TEMPLATES_OR_INTERFACES_NOT_FOUND", CatResourceMissing}
	CodeUserAlreadyExists    = Code{"USER_ALREADY_EXISTS", CatResourceExists}
	CodePartyAlreadyExists   = Code{"PARTY_ALREADY_EXISTS", CatResourceExists}
	CodeDuplicateCommand     = Code{"DUPLICATE_COMMAND", CatResourceExists}
	CodeNotActive            = Code{"CONTRACT_NOT_ACTIVE", CatResourceMissing}
	CodeContention           = Code{"LOCAL_VERDICT_LOCKED_CONTRACTS", CatContention}
	CodeInFlight             = Code{"SUBMISSION_ALREADY_IN_FLIGHT", CatContention}
	CodeBackpressure         = Code{"PARTICIPANT_BACKPRESSURE", CatContention}
	CodeInterpretation       = Code{"DAML_INTERPRETATION_ERROR", CatInvalidGivenState}
	CodeAuthorization        = Code{"DAML_AUTHORIZATION_ERROR", CatInvalidIndependent}
	CodePruned               = Code{"PARTICIPANT_PRUNED_DATA_ACCESSED", CatInvalidGivenState}
	CodeAfterLedgerEnd       = Code{"OFFSET_AFTER_LEDGER_END", CatSeekAfterEnd}
	CodeUnsupported          = Code{"UNSUPPORTED_OPERATION", CatUnsupported}
	CodeUnavailable          = Code{"SERVICE_NOT_RUNNING", CatTransient}
	CodeInternal             = Code{"LEDGER_API_INTERNAL_ERROR", CatInternal}
	CodeNotFound             = Code{"NOT_FOUND", CatResourceMissing}
	CodeNotConnected         = Code{"NOT_CONNECTED_TO_SYNCHRONIZER", CatInvalidGivenState}
	// The streams end with these (ledgerapi/streams).
	CodeStaleAuthorization = Code{"STALE_STREAM_AUTHORIZATION", CatContention}
	CodeTokenExpired       = Code{"ACCESS_TOKEN_EXPIRED", CatContention}
	// Externally signed transactions (TransactionProcessor.scala,
	// RequestValidationErrors.scala).
	CodeInvalidExternalSignature   = Code{"INVALID_EXTERNAL_SIGNATURE", CatInvalidIndependent}
	CodeInvalidExternalTransaction = Code{"INVALID_EXTERNAL_TRANSACTION", CatInvalidIndependent}
	CodeLedgerTimeOutsideBounds    = Code{"LEDGER_TIME_OUTSIDE_BOUNDS", CatInvalidIndependent}
	CodeCannotActViaParticipant    = Code{"SUBMITTER_CANNOT_ACT_VIA_PARTICIPANT", CatInsufficientPermission}
)

// GRPC is the gRPC status code of c's category.
func (c Code) GRPC() int { return grpcOf[c.Cat] }

// Error is an error the API answers as a JsCantonError.
type Error struct {
	Code      Code
	Cause     string
	Context   map[string]string
	Resources [][2]string
}

func (e *Error) Error() string { return e.Code.ID + ": " + e.Cause }

// Err is an Error of code, its cause formatted as fmt.Sprintf does.
func Err(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Cause: fmt.Sprintf(format, args...)}
}

// InvalidArgument is an Error of CodeInvalidArgument.
func InvalidArgument(format string, args ...any) *Error {
	return Err(CodeInvalidArgument, format, args...)
}

// PermissionDenied is an Error of CodePermissionDenied.
func PermissionDenied(format string, args ...any) *Error {
	return Err(CodePermissionDenied, format, args...)
}

// JsError is the wire shape (JsCantonError in the spec). Optional
// fields without a value are left out: the spec does not allow null.
type JsError struct {
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

// Of maps an error from the ledger to its Canton error.
func Of(err error) *Error {
	var ce *Error
	if errors.As(err, &ce) {
		return ce
	}
	switch {
	case fault.IsValidation(err), errors.Is(err, coin.ErrInvalidPartyID), errors.Is(err, coin.ErrInvalidContractID),
		errors.Is(err, coin.ErrInvalidAmount), errors.Is(err, ledger.ErrForgedBlob):
		return InvalidArgument("%s", err.Error())
	case errors.Is(err, apiread.ErrPruned):
		return Err(CodePruned, "%s", err.Error())
	case errors.Is(err, apiread.ErrAfterLedgerEnd):
		return Err(CodeAfterLedgerEnd, "%s", err.Error())
	case errors.Is(err, fault.ErrForbidden):
		return PermissionDenied("%s", err.Error())
	case errors.Is(err, userrights.ErrUserNotFound):
		return Err(CodeUserNotFound, "%s", err.Error())
	case errors.Is(err, userrights.ErrPartyNotFound):
		return Err(CodePartyNotKnown, "%s", err.Error())
	case errors.Is(err, fault.ErrNotFound):
		return Err(CodeContractNotFound, "%s", err.Error())
	case errors.Is(err, fault.ErrDuplicate):
		return Err(CodeDuplicateCommand, "%s", err.Error())
	case errors.Is(err, fault.ErrInFlight):
		return Err(CodeInFlight, "%s", err.Error())
	case errors.Is(err, ledger.ErrReassigning):
		return Err(CodeContention, "%s", err.Error())
	case errors.Is(err, fault.ErrInsufficientFunds), errors.Is(err, fault.ErrExpired), errors.Is(err, fault.ErrRequirement):
		return Err(CodeInterpretation, "%s", err.Error())
	case errors.Is(err, fault.ErrConflict):
		return Err(CodeNotActive, "%s", err.Error())
	case errors.Is(err, fault.ErrUnavailable):
		return Err(CodeUnavailable, "the ledger is temporarily unavailable; retry shortly")
	}
	return Err(CodeInternal, "an unexpected error occurred")
}

// WriteError answers err as a JsCantonError, logging server failures once.
func WriteError(log *slog.Logger, w http.ResponseWriter, r *http.Request, err error) {
	ce := Of(err)
	grpc := grpcOf[ce.Code.Cat]
	status := httpOf[grpc]
	if status >= 500 && r.Context().Err() == nil {
		log.ErrorContext(r.Context(), "ledger api request failed", "method", r.Method, "path", r.URL.Path, "status", status, "err", err,
			"request_id", web.RequestIDFrom(r.Context()))
	}
	b, _ := json.Marshal(ce.Body(web.RequestIDFrom(r.Context())))
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(b)
}

// Body is e's JsCantonError, with the request's correlation id.
func (e *Error) Body(correlationID string) JsError {
	body := JsError{
		Code: e.Code.ID, Cause: e.Cause, Context: e.Context, Resources: e.Resources,
		ErrorCategory: int(e.Code.Cat), GrpcCodeValue: grpcOf[e.Code.Cat], CorrelationID: correlationID,
	}
	if body.Context == nil {
		body.Context = map[string]string{}
	}
	if body.Resources == nil {
		body.Resources = [][2]string{}
	}
	switch e.Code.Cat {
	case CatTransient, CatContention, CatSeekAfterEnd:
		body.RetryInfo = "1 second"
	}
	return body
}
