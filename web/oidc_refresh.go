package web

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"

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
	if err != nil {
		var re *oauth2.RetrieveError
		if errors.As(err, &re) && re.Response != nil && re.Response.StatusCode/100 == 4 {
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
		return "", fmt.Errorf("the ID token carries no %q claim (oidc.userClaim) to name the user", claim)
	}
	return v, nil
}
