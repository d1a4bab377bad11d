package web

// DegradedError is a readiness check's answer for a dependency that is down
// while the wallet still serves without it (the identity provider's JWKS:
// the keys held keep verifying tokens). /readyz stays 200, with status
// "degraded" and the reason under "degraded": taking the replica out of
// service would turn a partial outage into a full one. Reason is shown to
// unauthenticated probes, so it must name no host, user or secret.
type DegradedError struct {
	Reason string
}

func (e *DegradedError) Error() string { return "degraded: " + e.Reason }
