package web

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"golang.org/x/oauth2"
)

// Refresh renews a login's tokens with its refresh token (RFC 6749 §6).
// A refusal by the provider (invalid_grant and every other 4xx: the token
// revoked, consent withdrawn, the user gone), or a new ID token that fails
// verification or names another user, is ErrLoginEnded; a provider that
// cannot be asked is another error. Neither the refresh token nor the new
// tokens are ever logged.
func (o *OIDCLogin) Refresh(ctx context.Context, refreshToken, user string) (Tokens, error) {
	p, err := o.discover(ctx)
	if err != nil {
		return Tokens{}, err
	}
	ctx = o.ctx(ctx)
	t, err := o.oauth(p).TokenSource(ctx, &oauth2.Token{RefreshToken: refreshToken}).Token()
	if status := providerStatus(err); status/100 == 5 {
		// A provider that answers is up: a 5xx is most often one failed
		// transaction (Hydra: "Unable to serialize access due to a
		// concurrent update"), which left the refresh token unused. Ask
		// once more before the sessions pause their renewals.
		o.log().InfoContext(ctx, "login service: a renewal failed at the provider; trying once more", "issuer", o.cfg.Issuer, "status", status)
		select {
		case <-time.After(refreshRetryDelay):
		case <-ctx.Done():
			return Tokens{}, ctx.Err()
		}
		t, err = o.oauth(p).TokenSource(ctx, &oauth2.Token{RefreshToken: refreshToken}).Token()
	}
	if err != nil {
		var re *oauth2.RetrieveError
		if providerStatus(err)/100 == 4 && errors.As(err, &re) {
			o.log().InfoContext(ctx, "login ended: the provider refused to renew it", "user", user, "error", re.ErrorCode)
			return Tokens{}, ErrLoginEnded
		}
		o.log().WarnContext(ctx, "login service: renewing a login failed; its session serves on and tries again", "issuer", o.cfg.Issuer, "err", err)
		return Tokens{}, err
	}
	raw, _ := t.Extra("id_token").(string)
	if raw != "" {
		idt, err := p.Verifier(&oidc.Config{ClientID: o.cfg.ClientID}).Verify(ctx, raw)
		if err == nil {
			var got string
			if got, err = o.userOf(idt); err == nil && got != user {
				err = errors.New("it names another user")
			}
		}
		if err != nil {
			o.log().WarnContext(ctx, "login ended: the provider's renewed ID token is not acceptable", "user", user, "err", err)
			return Tokens{}, ErrLoginEnded
		}
	}
	return Tokens{IDToken: raw, RefreshToken: t.RefreshToken, Expiry: t.Expiry}, nil
}

// refreshRetryDelay is how long a renewal the provider answered with a
// 5xx waits before its one retry.
const refreshRetryDelay = 250 * time.Millisecond

// providerStatus is the HTTP status of the provider's answer to a token
// request that failed (0: it did not answer).
func providerStatus(err error) int {
	var re *oauth2.RetrieveError
	if errors.As(err, &re) && re.Response != nil {
		return re.Response.StatusCode
	}
	return 0
}

// errNoUserClaim is an ID token without the claim that names the user.
var errNoUserClaim = errors.New("no user claim")

// userOf is the user an ID token names: its UserClaim (sub by default).
func (o *OIDCLogin) userOf(idt *oidc.IDToken) (string, error) {
	claim := cmp.Or(o.cfg.UserClaim, "sub")
	if claim == "sub" {
		if idt.Subject == "" {
			return "", errors.New("ID token without subject")
		}
		return idt.Subject, nil
	}
	var all map[string]any
	if err := idt.Claims(&all); err != nil {
		return "", err
	}
	v, _ := all[claim].(string)
	if v == "" || strings.IndexByte(v, 0) >= 0 {
		// The claims' names (never their values) tell the operator what
		// oidc.userClaim could be: a provider's claims_supported may not
		// list what its ID tokens really carry, nor carry what it lists.
		return "", fmt.Errorf("%w: the provider's ID token carries no %q claim (oidc.userClaim) to name the user; it carries %s",
			errNoUserClaim, claim, strings.Join(slices.Sorted(maps.Keys(all)), ", "))
	}
	return v, nil
}
