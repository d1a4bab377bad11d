package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/ccwallet/ccwallet/web"
)

// checkProvider is config check's look at the identity provider: the
// redirect URL's origin (no network), then, unless offline, the discovery
// documents and JWKS the wallet will fetch (web.CheckProvider). It prints
// what it checked and returns the problems, each naming its key.
func checkProvider(ctx context.Context, cfg Config, getenv func(string) string, offline bool, stdout io.Writer) []string {
	oc, err := cfg.oidcSettings(getenv)
	if err != nil {
		return nil // validate has said why
	}
	var problems []string
	if oc.RedirectURL != "" {
		if p := web.CheckRedirectURL(oc.RedirectURL, cfg.PublicURL); p != "" {
			problems = append(problems, p)
		}
	}
	if oc.Issuer == "" && cfg.Auth.JWKSURL == "" && cfg.Auth.Issuer == "" {
		return problems // the built-in provider: nothing to fetch
	}
	if offline {
		fmt.Fprintln(stdout, "note: --offline: the identity provider's discovery document and JWKS were not fetched")
		return problems
	}
	problems = append(problems, web.CheckProvider(ctx, web.ProviderCheck{
		Issuer: oc.Issuer, APIIssuer: cfg.Auth.Issuer, JWKSURL: cfg.Auth.JWKSURL, UserClaim: oc.userClaim(),
		Note: func(n string) { fmt.Fprintln(stdout, "note: "+n) },
	})...)
	if len(problems) == 0 {
		fmt.Fprintf(stdout, "identity provider OK: %s\n", strings.Join(nonEmpty(oc.Issuer, cfg.Auth.Issuer, cfg.Auth.JWKSURL), ", "))
	}
	return problems
}

func nonEmpty(s ...string) []string {
	var out []string
	for _, v := range s {
		if v != "" && !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}
