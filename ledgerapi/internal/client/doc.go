// Package client is a Ledger API v2 client generated from Canton's
// OpenAPI spec (gen.sh), used by the tests as a real client would be.
package client

//go:generate ./gen.sh
