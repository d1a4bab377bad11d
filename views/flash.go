package views

import "context"

// flashKey carries the message of the action just done to the layout.
type flashKey struct{}

// WithFlash returns ctx carrying msg, the words saying what the action just
// done did; the layout shows them in its status region. Handlers make msg
// from their own fixed table, never from request text.
func WithFlash(ctx context.Context, msg string) context.Context {
	if msg == "" {
		return ctx
	}
	return context.WithValue(ctx, flashKey{}, msg)
}

// flashOf is the message WithFlash put in ctx, or "".
func flashOf(ctx context.Context) string {
	msg, _ := ctx.Value(flashKey{}).(string)
	return msg
}
