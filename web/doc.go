// Package web is ccwallet's HTTP plumbing: JWT bearer authentication, JSON
// encoding and decoding, request middleware, health endpoints and servers
// with TLS/mTLS.
//
// It knows nothing about the wallet. It has no routes of the application and
// no domain rules, and it imports no other package of this module, so that the
// route table in package handlers stays the one place where the surface of the
// app is defined (STYLE.md §2, like miniflux internal/http and ardanlabs
// foundation/web).
package web
