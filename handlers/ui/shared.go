package ui

import (
	"strings"

	"github.com/ccwallet/ccwallet/handlers/shared"
)

// The names the page handlers use for what they share with the JSON APIs
// (package shared).
var (
	badRequest = shared.BadRequest
	forbidden  = shared.Forbidden
	notFound   = shared.NotFound
	clientGone = shared.ClientGone
	httpError  = shared.Error
	notYours   = shared.NotYours
	statusOf   = shared.Status
	trimmed    = strings.TrimSpace
)

// The server-sent event streams' pieces (shared/stream.go).
var (
	startEventStream = shared.StartEventStream
	countDown        = shared.CountDown
)

const (
	eventKeepAlive  = shared.EventKeepAlive
	eventRetryAfter = shared.EventRetryAfter
)
