package api

import "github.com/ccwallet/ccwallet/handlers/shared"

// The names the JSON handlers use for what they share with the web wallet
// (package shared).
var (
	subject    = shared.Subject
	badRequest = shared.BadRequest
	forbidden  = shared.Forbidden
	notFound   = shared.NotFound
	writeError = shared.WriteError
	httpError  = shared.Error
	notYours   = shared.NotYours
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
