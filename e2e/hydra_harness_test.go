package e2e

// Ory Hydra as an independent OpenID Provider (issue 39). Hydra is a Go
// program of its own module (e2e/hydra/go.mod, kept out of ccwallet's
// go.mod); scripts/deps.sh builds it once into .cache/hydra, and the tests
// build it there when it is missing. Hydra has no login UI: hydraApp below
// is the tests' login-and-consent app, speaking Hydra's admin REST API.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
)

// hydraVersionRe finds the Hydra version e2e/hydra/go.mod pins: the one
// place it is written (scripts/deps.sh reads it there too).
var hydraVersionRe = regexp.MustCompile(`(?m)^\s*github\.com/ory/hydra/v2 (v\S+)`)

var (
	hydraOnce sync.Once
	hydraPath string
	hydraErr  error
)

// hydraBinary returns Hydra's binary, building it into .cache/hydra when
// missing (a few minutes the first time; `make deps` does it ahead).
func hydraBinary(t *testing.T) string {
	t.Helper()
	hydraOnce.Do(func() {
		dir, err := filepath.Abs("../.cache/hydra")
		if err != nil {
			hydraErr = err
			return
		}
		mod, err := os.ReadFile("hydra/go.mod")
		if err != nil {
			hydraErr = err
			return
		}
		m := hydraVersionRe.FindSubmatch(mod)
		if m == nil {
			hydraErr = fmt.Errorf("e2e/hydra/go.mod requires no github.com/ory/hydra/v2")
			return
		}
		hydraPath = filepath.Join(dir, "hydra-"+string(m[1]))
		if _, err := os.Stat(hydraPath); err == nil {
			return
		}
		// SQLite (DSN=memory) needs the sqlite tag, as Ory's -sqlite builds.
		build := exec.Command("go", "build", "-tags", "sqlite,sqlite_omit_load_extension", "-o", hydraPath, "github.com/ory/hydra/v2")
		build.Dir = "hydra"
		if out, err := build.CombinedOutput(); err != nil {
			hydraErr = fmt.Errorf("build hydra (bash scripts/deps.sh builds it): %v\n%s", err, out)
		}
	})
	if hydraErr != nil {
		t.Fatal(hydraErr)
	}
	return hydraPath
}

// freePorts returns n distinct loopback ports nobody listens on right now:
// each listener stays open until all are chosen, since the kernel may hand
// a port just closed to the next bind (Hydra once got the same port for
// its public and its admin API that way). Another process can still take
// one before its user binds it; startHydra retries on fresh ports then.
func freePorts(t *testing.T, n int) []int {
	t.Helper()
	var ports []int
	for range n {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		ports = append(ports, ln.Addr().(*net.TCPAddr).Port)
	}
	return ports
}

// hydra is one running Hydra with the tests' login-and-consent app.
type hydra struct {
	t *testing.T
	// public is Hydra's public URL, also its issuer; admin its admin API.
	public, admin string
	issuer        string
	app           *httptest.Server
	// passwordForms counts the login forms the app showed, by user: a
	// login Hydra's session skips shows none.
	mu            sync.Mutex
	passwordForms map[string]int
	// deny lists users whose consent the app refuses.
	deny map[string]bool
	// logouts counts accepted logout requests.
	logouts atomic.Int32
	// log is Hydra's log file.
	log string
}

// startHydra starts Hydra on loopback with an in-memory store, JWT access
// tokens, and the app's login, consent and logout pages.
func startHydra(t *testing.T) *hydra {
	t.Helper()
	bin := hydraBinary(t)
	h := &hydra{t: t, passwordForms: map[string]int{}, deny: map[string]bool{"mallory": true}}
	h.app = httptest.NewServer(h.appHandler())
	t.Cleanup(h.app.Close)
	dir := t.TempDir()
	for attempt := 1; ; attempt++ {
		err := h.serve(t, bin, filepath.Join(dir, fmt.Sprintf("hydra-%d.log", attempt)), freePorts(t, 2))
		if err == nil {
			break
		}
		if attempt == 3 {
			t.Fatal(err)
		}
		t.Logf("hydra's attempt %d: %v; again on fresh ports", attempt, err)
	}
	// Hydra would make its signing keys (RSA 4096, a few CPU seconds each
	// and one Hydra at a time) at the first discovery or JWKS request. The
	// tests import a key of their own into each of its two sets instead
	// (its admin API's PUT /admin/keys/SET, as an operator bringing keys
	// does), 2048-bit and made in the test: Hydra signs with it and
	// publishes it as with its own. Rotations (newKey) still have Hydra
	// make the key.
	var kids []string
	for _, set := range []string{"hydra.openid.id-token", "hydra.jwt.access-token"} {
		k := newOwnKey(t, set+"-"+uuid.NewString()[:8])
		h.call(t, "PUT", "/admin/keys/"+set, map[string]any{"keys": []any{k.jwk()}}, nil)
		kids = append(kids, k.kid)
	}
	// Ask for discovery and the JWKS once here, as a provider in service
	// has long answered them. Past Hydra's 10 s write timeout the answer is
	// cut off (EOF): ask again until it answers.
	hydraKeygen.Lock()
	defer hydraKeygen.Unlock()
	c := &http.Client{Timeout: 3 * time.Minute}
	for _, path := range []string{"/.well-known/openid-configuration", "/.well-known/jwks.json"} {
		for deadline := time.Now().Add(3 * time.Minute); ; time.Sleep(200 * time.Millisecond) {
			res, err := c.Get(h.public + path)
			if err == nil {
				res.Body.Close()
				if res.StatusCode == http.StatusOK {
					break
				}
				err = fmt.Errorf("status %s", res.Status)
			}
			if time.Now().After(deadline) {
				t.Fatalf("hydra %s: %v", path, err)
			}
		}
	}
	// Hydra publishes the imported keys and made none of its own.
	var jwks struct {
		Keys []struct {
			Kid string `json:"kid"`
		} `json:"keys"`
	}
	res, err := c.Get(h.public + "/.well-known/jwks.json")
	must(t, err)
	defer res.Body.Close()
	must(t, json.NewDecoder(res.Body).Decode(&jwks))
	var published []string
	for _, k := range jwks.Keys {
		published = append(published, k.Kid)
	}
	slices.Sort(published)
	slices.Sort(kids)
	if !slices.Equal(published, kids) {
		t.Fatalf("hydra publishes keys %v, want the imported %v", published, kids)
	}
	return h
}

// serve starts Hydra on the given public and admin ports, its log at
// logPath (h.log), and waits until both its APIs answer as Hydra's. It
// returns an error, with Hydra stopped, when Hydra exits first (another
// process took a port between freePorts and Hydra's bind), or when it is
// not ready in a minute.
func (h *hydra) serve(t *testing.T, bin, logPath string, ports []int) error {
	t.Helper()
	h.public = fmt.Sprintf("http://127.0.0.1:%d", ports[0])
	h.admin = fmt.Sprintf("http://127.0.0.1:%d", ports[1])
	h.issuer = h.public + "/"
	cmd := exec.Command(bin, "serve", "all", "--dev", "--sqa-opt-out")
	cmd.Env = append(os.Environ(),
		"DSN=memory",
		"SERVE_PUBLIC_HOST=127.0.0.1", fmt.Sprintf("SERVE_PUBLIC_PORT=%d", ports[0]),
		"SERVE_ADMIN_HOST=127.0.0.1", fmt.Sprintf("SERVE_ADMIN_PORT=%d", ports[1]),
		"URLS_SELF_ISSUER="+h.issuer,
		"URLS_LOGIN="+h.app.URL+"/login", "URLS_CONSENT="+h.app.URL+"/consent", "URLS_LOGOUT="+h.app.URL+"/logout",
		"SECRETS_SYSTEM=ccwallet-e2e-hydra-system-secret-0123456789",
		"STRATEGIES_ACCESS_TOKEN=jwt",
		"LOG_LEVEL=warn",
	)
	logf, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	h.log = logPath
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	stop := func() { _ = cmd.Process.Kill(); <-exited; logf.Close() }
	// ready: the admin API lists clients (Hydra's public API, or any
	// other server, answers 404 there) and the public API is ready.
	ready := func() bool {
		for _, u := range []string{h.admin + "/admin/clients", h.public + "/health/ready"} {
			res, err := http.Get(u)
			if err != nil {
				return false
			}
			res.Body.Close()
			if res.StatusCode != http.StatusOK {
				return false
			}
		}
		return true
	}
	for deadline := time.Now().Add(60 * time.Second); !ready(); {
		select {
		case <-exited:
			log, _ := os.ReadFile(logPath)
			logf.Close()
			return fmt.Errorf("hydra exited before it was ready:\n%s", log)
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			stop()
			log, _ := os.ReadFile(logPath)
			return fmt.Errorf("hydra was not ready in 60 s:\n%s", log)
		}
	}
	// Both APIs answered, but another Hydra may hold a port and answer
	// on it while this one, failing to bind it, is about to exit.
	if err := listensOn(cmd.Process.Pid, ports); err != nil {
		stop()
		log, _ := os.ReadFile(logPath)
		return fmt.Errorf("%w:\n%s", err, log)
	}
	t.Cleanup(stop)
	return nil
}

// listensOn checks that process pid holds the listening TCP sockets of
// ports: each port's listening socket in /proc/net/tcp (by its inode) is
// among the process's open files.
func listensOn(pid int, ports []int) error {
	fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		return err
	}
	own := map[string]bool{}
	for _, fd := range fds {
		if link, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", pid, fd.Name())); err == nil {
			if inode, ok := strings.CutPrefix(link, "socket:["); ok {
				own[strings.TrimSuffix(inode, "]")] = true
			}
		}
	}
	table, err := os.ReadFile("/proc/net/tcp")
	if err != nil {
		return err
	}
	for _, port := range ports {
		local := fmt.Sprintf(":%04X", port)
		found := false
		for _, line := range strings.Split(string(table), "\n")[1:] {
			// sl local_address rem_address st ... inode (the 10th field);
			// st 0A is LISTEN.
			f := strings.Fields(line)
			if len(f) > 9 && strings.HasSuffix(f[1], local) && f[3] == "0A" && own[f[9]] {
				found = true
				break
			}
		}
		if !found {
			return fmt.Errorf("hydra (pid %d) does not listen on port %d", pid, port)
		}
	}
	return nil
}

// hydraKeygen lets one Hydra at a time make RSA 4096 keys (its first
// discovery, a rotation): the Hydra tests run in parallel, and two key
// generations at once on a busy 2-core machine can miss Hydra's 10 s
// write timeout.
var hydraKeygen sync.Mutex

// call sends a JSON request to Hydra's admin API and decodes the answer
// into out (when not nil); any status but 2xx fails the test.
func (h *hydra) call(t *testing.T, method, path string, body, out any) {
	t.Helper()
	if method == "POST" && strings.HasPrefix(path, "/admin/keys/") {
		h.newKey(t, path, body)
		return
	}
	if err := h.callErr(method, path, body, out); err != nil {
		t.Fatal(err)
	}
}

// newKey asks Hydra for a new key in the set at path (POST /admin/keys/SET,
// body naming its kid), one Hydra at a time (see hydraKeygen). Past
// Hydra's 10 s write timeout the answer is cut off while Hydra goes on
// making and storing the key: then it waits for the kid in the set.
func (h *hydra) newKey(t *testing.T, path string, body any) {
	t.Helper()
	hydraKeygen.Lock()
	defer hydraKeygen.Unlock()
	err := h.callErr("POST", path, body, nil)
	var cut *url.Error
	if err == nil || !errors.As(err, &cut) {
		if err != nil {
			t.Fatal(err)
		}
		return
	}
	kid, _ := body.(map[string]any)["kid"].(string)
	for deadline := time.Now().Add(3 * time.Minute); ; time.Sleep(500 * time.Millisecond) {
		var set struct {
			Keys []struct {
				Kid string `json:"kid"`
			} `json:"keys"`
		}
		if h.callErr("GET", path, nil, &set) == nil {
			for _, k := range set.Keys {
				if k.Kid == kid && kid != "" {
					return
				}
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("%v, and key %q never appeared in %s", err, kid, path)
		}
	}
}

func (h *hydra) callErr(method, path string, body, out any) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, h.admin+path, rd)
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode/100 != 2 {
		return fmt.Errorf("hydra %s %s: %s %s", method, path, res.Status, b)
	}
	if out != nil {
		return json.Unmarshal(b, out)
	}
	return nil
}

// webClient registers the wallet as Hydra's client for the browser login.
func (h *hydra) webClient(t *testing.T, id, secret, walletURL string) {
	t.Helper()
	_ = h.callErr("DELETE", "/admin/clients/"+id, nil, nil) // another wallet's
	h.call(t, "POST", "/admin/clients", map[string]any{
		"client_id": id, "client_secret": secret,
		"grant_types": []string{"authorization_code", "refresh_token"}, "response_types": []string{"code"},
		"scope": "openid profile offline_access", "token_endpoint_auth_method": "client_secret_basic",
		"redirect_uris": []string{walletURL + "/auth/callback"}, "post_logout_redirect_uris": []string{walletURL + "/"},
	}, nil)
}

// machineClient registers an API client of the client-credentials grant,
// allowed the given audiences and scope daml_ledger_api.
func (h *hydra) machineClient(t *testing.T, id, secret string, audiences ...string) {
	t.Helper()
	h.call(t, "POST", "/admin/clients", map[string]any{
		"client_id": id, "client_secret": secret, "grant_types": []string{"client_credentials"},
		"scope": "daml_ledger_api", "audience": audiences, "token_endpoint_auth_method": "client_secret_basic",
	}, nil)
}

// clientToken gets an access token by the client-credentials grant.
func (h *hydra) clientToken(t *testing.T, id, secret, audience string) string {
	t.Helper()
	form := url.Values{"grant_type": {"client_credentials"}, "scope": {"daml_ledger_api"}, "audience": {audience}}
	req, _ := http.NewRequest("POST", h.public+"/oauth2/token", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.SetBasicAuth(url.QueryEscape(id), url.QueryEscape(secret))
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusOK || json.Unmarshal(b, &tok) != nil || tok.AccessToken == "" {
		t.Fatalf("token for %s: %s %s", id, res.Status, b)
	}
	return tok.AccessToken
}

// hydraEmail is the email the app's consent puts in a user's ID token.
func hydraEmail(user string) string { return user + "@people.example" }

// hydraPassword is the app's password of a user.
func hydraPassword(user string) string { return user + "-hydra-pw" }

// appHandler is the login, consent and logout app.
func (h *hydra) appHandler() http.Handler {
	mux := http.NewServeMux()
	redirectTo := func(w http.ResponseWriter, r *http.Request, ans map[string]any) {
		to, _ := ans["redirect_to"].(string)
		http.Redirect(w, r, to, http.StatusFound)
	}
	fail := func(w http.ResponseWriter, err error) { http.Error(w, err.Error(), http.StatusBadGateway) }
	mux.HandleFunc("GET /login", func(w http.ResponseWriter, r *http.Request) {
		ch := r.URL.Query().Get("login_challenge")
		var req struct {
			Skip    bool   `json:"skip"`
			Subject string `json:"subject"`
		}
		if err := h.callErr("GET", "/admin/oauth2/auth/requests/login?login_challenge="+url.QueryEscape(ch), nil, &req); err != nil {
			fail(w, err)
			return
		}
		if req.Skip { // Hydra's session lives: no password asked
			var ans map[string]any
			if err := h.callErr("PUT", "/admin/oauth2/auth/requests/login/accept?login_challenge="+url.QueryEscape(ch),
				map[string]any{"subject": req.Subject}, &ans); err != nil {
				fail(w, err)
				return
			}
			redirectTo(w, r, ans)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><html lang="en"><title>Test IdP login</title><form method="post" action="/login">
<input type="hidden" name="challenge" value="%s"><label>User <input id="idp-username" name="username"></label>
<label>Password <input id="idp-password" name="password" type="password"></label><button id="idp-submit">Log in</button></form>`,
			html.EscapeString(ch))
	})
	mux.HandleFunc("POST /login", func(w http.ResponseWriter, r *http.Request) {
		ch, user := r.PostFormValue("challenge"), r.PostFormValue("username")
		if r.PostFormValue("password") != hydraPassword(user) {
			http.Error(w, "wrong password", http.StatusUnauthorized)
			return
		}
		h.mu.Lock()
		h.passwordForms[user]++
		h.mu.Unlock()
		var ans map[string]any
		if err := h.callErr("PUT", "/admin/oauth2/auth/requests/login/accept?login_challenge="+url.QueryEscape(ch),
			map[string]any{"subject": user, "remember": true, "remember_for": 3600}, &ans); err != nil {
			fail(w, err)
			return
		}
		redirectTo(w, r, ans)
	})
	mux.HandleFunc("GET /consent", func(w http.ResponseWriter, r *http.Request) {
		ch := url.QueryEscape(r.URL.Query().Get("consent_challenge"))
		var req struct {
			Subject  string   `json:"subject"`
			Scope    []string `json:"requested_scope"`
			Audience []string `json:"requested_access_token_audience"`
		}
		if err := h.callErr("GET", "/admin/oauth2/auth/requests/consent?consent_challenge="+ch, nil, &req); err != nil {
			fail(w, err)
			return
		}
		var ans map[string]any
		var err error
		if h.deny[req.Subject] {
			err = h.callErr("PUT", "/admin/oauth2/auth/requests/consent/reject?consent_challenge="+ch,
				map[string]any{"error": "access_denied", "error_description": "the user refused"}, &ans)
		} else {
			// Every user's ID token carries an email (hydraEmail), for
			// the wallets that name users by it (oidc.userClaim).
			err = h.callErr("PUT", "/admin/oauth2/auth/requests/consent/accept?consent_challenge="+ch,
				map[string]any{"grant_scope": req.Scope, "grant_access_token_audience": req.Audience, "remember": true, "remember_for": 3600,
					"session": map[string]any{"id_token": map[string]any{"email": hydraEmail(req.Subject)}}}, &ans)
		}
		if err != nil {
			fail(w, err)
			return
		}
		redirectTo(w, r, ans)
	})
	mux.HandleFunc("GET /logout", func(w http.ResponseWriter, r *http.Request) {
		ch := url.QueryEscape(r.URL.Query().Get("logout_challenge"))
		var ans map[string]any
		if err := h.callErr("PUT", "/admin/oauth2/auth/requests/logout/accept?logout_challenge="+ch, nil, &ans); err != nil {
			fail(w, err)
			return
		}
		h.logouts.Add(1)
		redirectTo(w, r, ans)
	})
	return mux
}

func (h *hydra) forms(user string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.passwordForms[user]
}

// hydraWallet is a wallet of the test's own whose login and API tokens
// come from h.
type hydraWallet struct {
	url, ledgerAPI, health string
	dir                    string
}

// walletAudience is the audience the Hydra wallets expect (ccwallet's
// default, Splice's).
const walletAudience = "https://canton.network.global"

// startHydraWallet starts a wallet on db (a SQLite path or a Postgres URL)
// logging in through h, its API verifying h's tokens (jwks: where it
// fetches them; "" for Hydra's own), and registers it as h's client.
func startHydraWallet(t *testing.T, h *hydra, db, dir, jwks, extra string) hydraWallet {
	t.Helper()
	if jwks == "" {
		jwks = h.public + "/.well-known/jwks.json"
	}
	values := fmt.Sprintf(`rateLimit: {burst: 0}
oidc:
  issuer: %q
  clientId: ccwallet-web
  clientSecret: hydra-e2e-web-secret
  scopes: [openid, profile, offline_access]
auth:
  issuer: %q
  audience: %q
  jwksUrl: %q
%s`, h.issuer, h.issuer, walletAudience, jwks, extra)
	return startHydraWalletValues(t, h, db, dir, values)
}

// startHydraWalletValues is startHydraWallet with a values file of the
// test's own (its client ccwallet-web, secret hydra-e2e-web-secret).
func startHydraWalletValues(t *testing.T, h *hydra, db, dir, values string) hydraWallet {
	t.Helper()
	srv := startCrashServerWith(t, walletBin, db, dir, values)
	log, err := os.ReadFile(filepath.Join(dir, "crash.log"))
	must(t, err)
	w := hydraWallet{url: srv.url, dir: dir}
	if m := ledgerAPIRe.FindSubmatch(log); m != nil {
		w.ledgerAPI = "http://" + string(m[1])
	}
	if m := healthRe.FindSubmatch(log); m != nil {
		w.health = "http://" + string(m[1])
	}
	h.webClient(t, "ccwallet-web", "hydra-e2e-web-secret", w.url)
	return w
}

var healthRe = regexp.MustCompile(`health=(\S+)`)

// apiGet sends GET url with token and returns the status and body.
func apiGet(t *testing.T, u, token string) (int, string) {
	t.Helper()
	req, _ := http.NewRequestWithContext(context.Background(), "GET", u, nil)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	res, err := (&http.Client{Timeout: 30 * time.Second}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}
