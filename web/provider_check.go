package web

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"
)

// ProviderCheck is what `ccwallet config check` asks of the operator's
// identity provider: its discovery document and JWKS, fetched the way the
// wallet will fetch them.
type ProviderCheck struct {
	// Issuer is oidc.issuer, the browser login's provider.
	Issuer string
	// APIIssuer is auth.issuer, the API tokens' issuer ("" or the same
	// as Issuer: nothing more to fetch).
	APIIssuer string
	// JWKSURL is auth.jwksUrl, where the API's keys come from ("": the
	// discovery's jwks_uri).
	JWKSURL string
	// UserClaim is the claim that names the user (oidc.userClaim).
	UserClaim string
	// HTTPClient fetches; nil: a client with a 10 s timeout.
	HTTPClient *http.Client
	// Note gets what may not fit but is no error (nil: dropped).
	Note func(string)
}

// providerDiscovery is the part of an OpenID Provider's discovery
// document (OpenID Connect Discovery 1.0 §3) the wallet relies on.
type providerDiscovery struct {
	Issuer          string   `json:"issuer"`
	AuthURL         string   `json:"authorization_endpoint"`
	TokenURL        string   `json:"token_endpoint"`
	JWKSURI         string   `json:"jwks_uri"`
	ResponseTypes   []string `json:"response_types_supported"`
	IDTokenAlgs     []string `json:"id_token_signing_alg_values_supported"`
	ClaimsSupported []string `json:"claims_supported"`
	CodeChallenge   []string `json:"code_challenge_methods_supported"`
}

// verifiableAlgs are the signature algorithms the wallet verifies (see
// Verifier.allowedAlgs; HS256 needs a shared secret no provider publishes).
var verifiableAlgs = []string{"RS256", "ES256", "EdDSA"}

// CheckProvider fetches the discovery document of each issuer and the JWKS
// the wallet will use, and returns every problem found, each in words
// naming the key to fix. A provider that cannot be reached is one problem
// saying so (and that --offline skips these checks).
func CheckProvider(ctx context.Context, pc ProviderCheck) []string {
	client := pc.HTTPClient
	if client == nil {
		client = &http.Client{Timeout: 10 * time.Second}
	}
	var problems []string
	jwks := map[string]string{} // URL -> the key that names it
	issuers := []struct{ key, iss string }{{"oidc.issuer", pc.Issuer}}
	if pc.APIIssuer != "" && pc.APIIssuer != pc.Issuer {
		issuers = append(issuers, struct{ key, iss string }{"auth.issuer", pc.APIIssuer})
	}
	for _, is := range issuers {
		if is.iss == "" {
			continue
		}
		d, err := fetchDiscovery(ctx, client, is.iss)
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s: %v", is.key, err))
			continue
		}
		problems = append(problems, d.problems(is.key, is.iss)...)
		if n := d.userClaimNote(is.key, pc.UserClaim); n != "" && pc.Note != nil {
			pc.Note(n)
		}
		if d.JWKSURI != "" && (pc.JWKSURL == "" || is.key == "oidc.issuer") {
			jwks[d.JWKSURI] = is.key + "'s jwks_uri"
		}
	}
	if pc.JWKSURL != "" {
		jwks[pc.JWKSURL] = "auth.jwksUrl"
	}
	urls := make([]string, 0, len(jwks))
	for u := range jwks {
		urls = append(urls, u)
	}
	slices.Sort(urls)
	for _, u := range urls {
		if err := checkJWKS(ctx, client, u); err != nil {
			problems = append(problems, fmt.Sprintf("%s: %v", jwks[u], err))
		}
	}
	return problems
}

// discoveryURL is the issuer's discovery document (the issuer with any
// trailing slash dropped, then /.well-known/openid-configuration).
func discoveryURL(issuer string) string {
	return strings.TrimSuffix(issuer, "/") + "/.well-known/openid-configuration"
}

// getProviderDoc GETs u and returns its body, or an error saying in words
// why the provider's answer is unusable.
func getProviderDoc(ctx context.Context, client *http.Client, u, what string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, fmt.Errorf("%s URL %q is not a URL: %v", what, u, err)
	}
	req.Header.Set("Accept", "application/json")
	res, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("cannot reach the identity provider for its %s at %s (%v); check the URL and that this machine can reach the provider, or run config check with --offline to skip the provider checks", what, u, err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(io.LimitReader(res.Body, jwksMaxBytes+1))
	if err != nil {
		return nil, fmt.Errorf("reading the provider's %s at %s: %v", what, u, err)
	}
	if res.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("the identity provider answered %s for its %s at %s", res.Status, what, u)
	}
	if len(body) > jwksMaxBytes {
		return nil, fmt.Errorf("the provider's %s at %s is larger than %d bytes", what, u, jwksMaxBytes)
	}
	return body, nil
}

func fetchDiscovery(ctx context.Context, client *http.Client, issuer string) (providerDiscovery, error) {
	var d providerDiscovery
	u, err := url.Parse(issuer)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return d, fmt.Errorf("%q is not an http(s) URL", issuer)
	}
	body, err := getProviderDoc(ctx, client, discoveryURL(issuer), "discovery document")
	if err != nil {
		return d, err
	}
	if err := json.Unmarshal(body, &d); err != nil {
		return d, fmt.Errorf("the discovery document at %s is not JSON: %v", discoveryURL(issuer), err)
	}
	return d, nil
}

// problems are what in d does not fit the wallet's use of the provider
// configured at key.
func (d providerDiscovery) problems(key, issuer string) []string {
	var p []string
	add := func(format string, args ...any) { p = append(p, key+": "+fmt.Sprintf(format, args...)) }
	if d.Issuer != issuer {
		add("is %q, but the provider calls itself %q; they must match exactly (a trailing slash included), or every token is refused", issuer, d.Issuer)
	}
	if key == "oidc.issuer" {
		if !slices.Contains(d.ResponseTypes, "code") {
			add("the provider does not offer the authorization code flow the browser login uses (response_types_supported: %s)", listOrNone(d.ResponseTypes))
		}
		if d.AuthURL == "" || d.TokenURL == "" {
			add("the discovery document names no authorization_endpoint or token_endpoint")
		}
		if len(d.CodeChallenge) > 0 && !slices.Contains(d.CodeChallenge, "S256") {
			add("the provider does not take PKCE with S256 (code_challenge_methods_supported: %s)", listOrNone(d.CodeChallenge))
		}
		if len(d.IDTokenAlgs) > 0 && !slices.ContainsFunc(d.IDTokenAlgs, func(a string) bool { return slices.Contains(verifiableAlgs, a) }) {
			add("the provider signs ID tokens with %s; the wallet verifies only %s", listOrNone(d.IDTokenAlgs), strings.Join(verifiableAlgs, ", "))
		}
	}
	if d.JWKSURI == "" {
		add("the discovery document names no jwks_uri, so the wallet cannot verify the provider's tokens")
	}
	return p
}

// userClaimNote says when userClaim is not among the claims the provider
// at key lists. That is no error: claims_supported "might not be an
// exhaustive list" (OpenID Connect Discovery 1.0 §3), and Hydra lists
// only sub while its consent app may put any claim in the ID token
// (session.id_token). Real ID tokens decide, at login: one without the
// claim is refused, naming it, and the log names the claims it carries.
func (d providerDiscovery) userClaimNote(key, userClaim string) string {
	if userClaim == "" || userClaim == "sub" || len(d.ClaimsSupported) == 0 || slices.Contains(d.ClaimsSupported, userClaim) {
		return ""
	}
	return fmt.Sprintf("oidc.userClaim: %q is not among the claims %s's provider lists (claims_supported: %s). Providers may carry more in "+
		"their ID tokens than they list (Hydra: what the consent app puts in session.id_token), so this is no error; but if its ID tokens "+
		"lack %q, every login is refused saying so, and the wallet's log names the claims they do carry",
		userClaim, key, listOrNone(d.ClaimsSupported), userClaim)
}

// checkJWKS fetches the key set at u and says whether it holds a key the
// wallet can verify with.
func checkJWKS(ctx context.Context, client *http.Client, u string) error {
	body, err := getProviderDoc(ctx, client, u, "JWKS")
	if err != nil {
		return err
	}
	keys, skipped, err := parseJWKS(body)
	if err != nil {
		return fmt.Errorf("the JWKS at %s is unusable: %v", u, err)
	}
	if len(keys) == 0 {
		why := ""
		if len(skipped) > 0 {
			why = " (" + strings.Join(skipped, "; ") + ")"
		}
		return fmt.Errorf("the JWKS at %s holds no signing key the wallet can use%s; it verifies %s", u, why, strings.Join(verifiableAlgs, ", "))
	}
	return nil
}

func listOrNone(l []string) string {
	if len(l) == 0 {
		return "none"
	}
	return strings.Join(l, ", ")
}

// CheckRedirectURL says what is wrong with the browser login's redirect
// URL given the wallet's public URL, or "" when nothing is: it must be an
// absolute http(s) URL, https unless on loopback, and on the public URL's
// origin (the login cookie is set there, so a callback on another origin
// finds none).
func CheckRedirectURL(redirect, public string) string {
	r, err := url.Parse(redirect)
	if err != nil || (r.Scheme != "https" && r.Scheme != "http") || r.Host == "" {
		return fmt.Sprintf("oidc.redirectUrl: %q is not an absolute http(s) URL", redirect)
	}
	if r.Scheme == "http" && !isLoopback(r.Hostname()) {
		return fmt.Sprintf("oidc.redirectUrl: %q is plain http off this machine; the provider sends the login code there in the clear (use https)", redirect)
	}
	if r.Fragment != "" {
		return fmt.Sprintf("oidc.redirectUrl: %q has a fragment, which providers refuse", redirect)
	}
	if public == "" {
		return ""
	}
	p, err := url.Parse(public)
	if err != nil || p.Host == "" {
		return ""
	}
	if r.Scheme != p.Scheme || r.Host != p.Host {
		return fmt.Sprintf("oidc.redirectUrl: %q is not on the wallet's public URL %s://%s; the login would come back where its cookie is not", redirect, p.Scheme, p.Host)
	}
	return ""
}
