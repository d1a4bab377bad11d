package ui_test

import (
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/handlers/handlerstest"
	"github.com/ccwallet/ccwallet/store"
)

var scriptRe = regexp.MustCompile(`<script[^>]*>[^<]*</script>`)

func TestUIOnboardTapHistory(t *testing.T) {
	handlerstest.ForEngine(t, func(t *testing.T, e *handlerstest.UIEnv) {
		b := e.Browser(t)
		csrf := b.Onboarded("alice")
		handlerstest.MustHave(t, b.Get("/"), http.StatusOK, `data-testid="party-id" title="alice::`, `data-testid="balance-cc" title="0.0000000000 CC">0.00 CC<`,
			`data-testid="no-holdings"`, `data-testid="tap-form"`, `data-testid="utxo-health"`, `data-testid="round-number"`)

		// Without JavaScript: post, then 303 back home.
		r := b.Post("/tap", url.Values{"csrf_token": {csrf}, "amount": {"100"}})
		if r.Status != http.StatusSeeOther || r.Header.Get("Location") != "/?done=tapped" {
			t.Fatalf("POST /tap = %d %q", r.Status, r.Header.Get("Location"))
		}
		handlerstest.MustHave(t, b.Get("/?done=tapped"), http.StatusOK, `data-testid="flash"><p>Coin from the faucet is in your wallet.</p>`)
		// At the initial price of 0.005 USD, 100 USD is 20000 CC.
		handlerstest.MustHave(t, b.Get("/"), http.StatusOK, `data-testid="balance-cc" title="20000.0000000000 CC">20,000.00 CC<`,
			`data-testid="balance-usd" title="100.0000000000 USD">100.00 USD<`, `data-testid="holding-row"`, `data-testid="utxo-count">1<`)
		handlerstest.MustHave(t, b.Get("/home/live"), http.StatusOK, `id="home-live"`)

		h := b.Get("/history")
		handlerstest.MustHave(t, h, http.StatusOK, `data-testid="history-row" data-kind="balance_change" data-subtype="Tap"`, `title="20000.0000000000 CC">20,000.00 CC<`)
		if strings.Index(h.Body, `data-subtype="Tap"`) > strings.Index(h.Body, `data-subtype="Onboarded"`) {
			t.Error("history is not newest first")
		}
		handlerstest.MustHave(t, b.Get("/history?kind=notification"), http.StatusOK, `data-subtype="Onboarded"`)
		if r := b.Get("/history?kind=notification"); strings.Contains(r.Body, `data-subtype="Tap"`) {
			t.Error("kind filter kept a Tap row")
		}
		handlerstest.MustHave(t, b.Get("/history?kind=bogus"), http.StatusUnprocessableEntity, "Unknown kind &#34;bogus&#34;; choose one from the list.")

		csv := b.Get("/history.csv?kind=balance_change")
		handlerstest.MustHave(t, csv, http.StatusOK, "id,time,round,kind,subtype,amount_cc", ",balance_change,Tap,20000.0000000000,")
		if ct := csv.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/csv") {
			t.Errorf("csv content type %q", ct)
		}
		if strings.Contains(csv.Body, "Onboarded") {
			t.Error("csv export ignores the filter")
		}
	})
}

func TestUITapErrors(t *testing.T) {
	handlerstest.ForEngine(t, func(t *testing.T, e *handlerstest.UIEnv) {
		b := e.Browser(t)
		csrf := b.Onboarded("bob")
		tests := []struct {
			name, amount string
			htmx         bool
			want         string
		}{
			{"not a number", "abc", false, "is not a number"},
			{"negative", "-5", true, "greater than 0"},
			{"empty", "", true, "Enter an amount"},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				hdr := map[string]string{}
				if tc.htmx {
					hdr["HX-Request"] = "true"
				}
				r := b.Do(http.MethodPost, "/tap", url.Values{"csrf_token": {csrf}, "amount": {tc.amount}}, hdr)
				handlerstest.MustHave(t, r, http.StatusUnprocessableEntity, `data-testid="tap-error"`, tc.want)
				if fragment := !strings.Contains(r.Body, "<html"); fragment != tc.htmx {
					t.Errorf("fragment = %v for HX-Request %v", fragment, tc.htmx)
				}
			})
		}
		r := b.Do(http.MethodPost, "/tap", url.Values{"csrf_token": {csrf}, "amount": {"1"}}, map[string]string{"HX-Request": "true"})
		handlerstest.MustHave(t, r, http.StatusOK, `data-testid="flash" hx-swap-oob="true"><p>Coin from the faucet is in your wallet.</p>`)
		if r.Header.Get("HX-Trigger") != "wallet-changed" {
			t.Errorf("HX-Trigger = %q", r.Header.Get("HX-Trigger"))
		}
	})
}

func TestUICSRF(t *testing.T) {
	handlerstest.ForEngine(t, func(t *testing.T, e *handlerstest.UIEnv) {
		b := e.Browser(t)
		csrf := b.Onboarded("alice")
		tests := []struct {
			name string
			form url.Values
			hdr  map[string]string
			want int
		}{
			{"no token", url.Values{"amount": {"1"}}, nil, http.StatusForbidden},
			{"wrong token", url.Values{"amount": {"1"}, "csrf_token": {"x" + csrf}}, nil, http.StatusForbidden},
			{"cross-site browser post with a valid token", url.Values{"amount": {"1"}, "csrf_token": {csrf}},
				map[string]string{"Sec-Fetch-Site": "cross-site"}, http.StatusForbidden},
			{"foreign origin", url.Values{"amount": {"1"}, "csrf_token": {csrf}},
				map[string]string{"Origin": "https://evil.example"}, http.StatusForbidden},
			{"htmx header token", url.Values{"amount": {"1"}}, map[string]string{"X-CSRF-Token": csrf}, http.StatusSeeOther},
			{"form token", url.Values{"amount": {"1"}, "csrf_token": {csrf}}, map[string]string{"Sec-Fetch-Site": "same-origin"}, http.StatusSeeOther},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				if r := b.Do(http.MethodPost, "/tap", tc.form, tc.hdr); r.Status != tc.want {
					t.Errorf("status = %d, want %d: %.300s", r.Status, tc.want, r.Body)
				}
			})
		}
		// Logout is a POST too: without the token it is refused.
		if r := b.Post("/logout", url.Values{}); r.Status != http.StatusForbidden {
			t.Errorf("logout without token = %d", r.Status)
		}
		// No GET changes state: GET /tap and GET /logout are not routes.
		for _, p := range []string{"/tap", "/logout", "/onboard?x=1"} {
			if r := b.Get(p); r.Status == http.StatusSeeOther && p != "/onboard?x=1" {
				t.Errorf("GET %s = %d", p, r.Status)
			}
		}
	})
}

func TestUISecurityHeadersAndCookie(t *testing.T) {
	handlerstest.ForEngine(t, func(t *testing.T, e *handlerstest.UIEnv) {
		b := e.Browser(t)
		b.Onboarded("alice")
		var session *http.Cookie
		u, _ := url.Parse(e.Srv.URL)
		for _, c := range b.C.Jar.Cookies(u) {
			if c.Name == "ccwallet_session" {
				session = c
			}
		}
		if session == nil {
			t.Fatal("no session cookie")
		}
		// The jar drops attributes: read them from a fresh login's Set-Cookie.
		b2 := e.Browser(t)
		r := b2.Get("/login")
		if sc := r.Header.Get("Set-Cookie"); !strings.Contains(sc, "HttpOnly") || !strings.Contains(sc, "SameSite=Lax") {
			t.Errorf("login cookie %q lacks HttpOnly/SameSite=Lax", sc)
		}
		for _, p := range []string{"/", "/history", "/onboard", "/admin"} {
			r := b.Get(p)
			csp := r.Header.Get("Content-Security-Policy")
			for _, want := range []string{"script-src 'self'", "frame-ancestors 'none'", "default-src 'self'"} {
				if !strings.Contains(csp, want) {
					t.Errorf("%s: CSP %q lacks %s", p, csp, want)
				}
			}
			if strings.Contains(csp, "unsafe-inline") {
				t.Errorf("%s: CSP allows inline", p)
			}
			if r.Header.Get("X-Content-Type-Options") != "nosniff" {
				t.Errorf("%s: no nosniff", p)
			}
			for _, tag := range scriptRe.FindAllString(r.Body, -1) {
				if !strings.Contains(tag, " src=") || !strings.HasSuffix(tag, "></script>") {
					t.Errorf("%s: inline script %s", p, tag)
				}
			}
			for _, bad := range []string{" style=", " onclick=", " onload=", " onsubmit="} {
				if strings.Contains(r.Body, bad) {
					t.Errorf("%s: inline %s", p, bad)
				}
			}
		}
		// Assets: content-hash URLs, cached for long.
		page := b.Get("/").Body
		m := regexp.MustCompile(`href="(/static/[0-9a-f]+/app\.css)"`).FindStringSubmatch(page)
		if m == nil {
			t.Fatal("no hashed stylesheet link")
		}
		css := b.Get(m[1])
		if css.Status != http.StatusOK || !strings.Contains(css.Header.Get("Cache-Control"), "immutable") {
			t.Errorf("stylesheet: %d %q", css.Status, css.Header.Get("Cache-Control"))
		}
	})
}

func TestUISessionTimeouts(t *testing.T) {
	handlerstest.ForEngine(t, func(t *testing.T, e *handlerstest.UIEnv) {
		idle := e.Browser(t)
		idle.Onboarded("alice")
		e.Clock.Advance(20 * time.Minute)
		handlerstest.MustHave(t, idle.Get("/history"), http.StatusOK)
		e.Clock.Advance(31 * time.Minute) // idle > 30 min since the last request
		if r := idle.Get("/history"); r.Status != http.StatusSeeOther || !strings.HasPrefix(r.Header.Get("Location"), "/login") {
			t.Errorf("idle session: GET /history = %d %q, want a redirect to /login", r.Status, r.Header.Get("Location"))
		}

		// An active session still ends 12 hours after login.
		active := e.Browser(t)
		active.Onboarded("bob")
		for range 35 { // 11 h 40 min, a request every 20 minutes
			e.Clock.Advance(20 * time.Minute)
			handlerstest.MustHave(t, active.Get("/history"), http.StatusOK)
		}
		e.Clock.Advance(25 * time.Minute)
		if r := active.Get("/history"); r.Status != http.StatusSeeOther {
			t.Errorf("session older than 12h: GET /history = %d", r.Status)
		}
	})
}

func TestUILogoutRevokes(t *testing.T) {
	handlerstest.ForEngine(t, func(t *testing.T, e *handlerstest.UIEnv) {
		b := e.Browser(t)
		csrf := b.Onboarded("alice")
		u, _ := url.Parse(e.Srv.URL)
		old := b.C.Jar.Cookies(u)

		r := b.Post("/logout", url.Values{"csrf_token": {csrf}})
		if r.Status != http.StatusSeeOther || !strings.Contains(r.Header.Get("Location"), "/dev-oidc/end_session?") {
			t.Fatalf("logout = %d %q, want 303 to the provider's end_session", r.Status, r.Header.Get("Location"))
		}
		// The provider ends its side and sends the browser back home.
		end := b.Get(r.Header.Get("Location"))
		if loc := end.Header.Get("Location"); end.Status/100 != 3 || loc != e.Srv.URL+"/" {
			t.Errorf("end_session = %d %q", end.Status, loc)
		}
		if r := b.Get("/history"); r.Status != http.StatusSeeOther || !strings.HasPrefix(r.Header.Get("Location"), "/login") {
			t.Errorf("after logout GET /history = %d %q", r.Status, r.Header.Get("Location"))
		}
		// A copy of the old cookie is refused too.
		replay := e.Browser(t)
		replay.C.Jar.SetCookies(u, old)
		if r := replay.Get("/history"); r.Status != http.StatusSeeOther {
			t.Errorf("old cookie after logout: GET /history = %d, want 303 to login", r.Status)
		}
		if r := replay.Post("/tap", url.Values{"csrf_token": {csrf}, "amount": {"1"}}); r.Status != http.StatusUnauthorized {
			t.Errorf("old cookie after logout: POST /tap = %d, want 401", r.Status)
		}
	})
}

func TestUIAdmin(t *testing.T) {
	handlerstest.ForEngine(t, func(t *testing.T, e *handlerstest.UIEnv) {
		admin := e.Browser(t)
		admin.Login("admin")
		page := admin.Get("/admin")
		handlerstest.MustHave(t, page, http.StatusOK, `data-testid="users"`, `data-user="admin"`, `data-testid="onboard-user-form"`,
			`data-testid="automations"`, "No automations yet.")
		csrf := handlerstest.CSRFOf(t, page.Body)
		handlerstest.MustHave(t, admin.Post("/admin/users", url.Values{"csrf_token": {csrf}, "name": {""}}), http.StatusUnprocessableEntity,
			`data-testid="onboard-user-error"`)
		if r := admin.Post("/admin/users", url.Values{"csrf_token": {csrf}, "name": {"carol"}}); r.Status != http.StatusSeeOther {
			t.Fatalf("onboard carol = %d: %.300s", r.Status, r.Body)
		}
		handlerstest.MustHave(t, admin.Get("/admin"), http.StatusOK, `data-user="carol"`)

		alice := e.Browser(t)
		alice.Onboarded("alice")
		handlerstest.MustHave(t, alice.Get("/admin"), http.StatusForbidden, `data-testid="error-message"`)
		if strings.Contains(alice.Get("/").Body, `data-testid="nav-admin"`) {
			t.Error("a normal user sees the admin link")
		}
		r := alice.Get("/admin")
		if r2 := alice.Post("/admin/users", url.Values{"csrf_token": {handlerstest.CSRFOf(t, r.Body)}, "name": {"mallory"}}); r2.Status != http.StatusForbidden {
			t.Errorf("normal user onboarding = %d", r2.Status)
		}
	})
}

func TestUIPublicAndProtected(t *testing.T) {
	handlerstest.ForEngine(t, func(t *testing.T, e *handlerstest.UIEnv) {
		b := e.Browser(t)
		handlerstest.MustHave(t, b.Get("/"), http.StatusOK, `data-testid="login-link"`)
		for _, p := range []string{"/history", "/admin", "/onboard", "/history.csv", "/events"} {
			if r := b.Get(p); r.Status != http.StatusSeeOther || !strings.HasPrefix(r.Header.Get("Location"), "/login?next=") {
				t.Errorf("GET %s logged out = %d %q", p, r.Status, r.Header.Get("Location"))
			}
		}
		// A forged callback without the login cookie logs nobody in.
		handlerstest.MustHave(t, b.Get("/auth/callback?code=x&state=y"), http.StatusUnauthorized, `data-testid="login-error"`)
		// With a pending login, a wrong state is refused before any code exchange.
		if r := b.Get("/login"); r.Status != http.StatusFound {
			t.Fatalf("GET /login = %d", r.Status)
		}
		handlerstest.MustHave(t, b.Get("/auth/callback?code=x&state=y"), http.StatusUnauthorized, "does not belong to this browser window")
		// A provider error is shown in words, not followed.
		start, err := url.Parse(b.Get("/login").Header.Get("Location"))
		if err != nil {
			t.Fatal(err)
		}
		handlerstest.MustHave(t, b.Get("/auth/callback?error=access_denied&state="+url.QueryEscape(start.Query().Get("state"))),
			http.StatusUnauthorized, "You did not allow the wallet to use your account")
		// Wrong password: the provider's form answers 422 and stays.
		b.Get("/login")
		r := b.Post("/dev-oidc/login", url.Values{"id": {"nope"}, "username": {"alice"}, "password": {"wrong"}})
		handlerstest.MustHave(t, r, http.StatusUnprocessableEntity, "development", `data-testid="login-error"`)
		// Post-login redirect only to local paths.
		b.Login("alice")
	})
}

func TestUIEvents(t *testing.T) {
	e := handlerstest.NewUIEnv(t, store.SQLite)
	b := e.Browser(t)
	csrf := b.Onboarded("alice")
	req, _ := http.NewRequest(http.MethodGet, e.Srv.URL+"/events", nil)
	res, err := b.C.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if ct := res.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("content type %q", ct)
	}
	if r := b.Post("/tap", url.Values{"csrf_token": {csrf}, "amount": {"1"}}); r.Status != http.StatusSeeOther {
		t.Fatalf("tap = %d", r.Status)
	}
	buf := make([]byte, 4096)
	got := ""
	for !strings.Contains(got, "event: changed") {
		n, err := res.Body.Read(buf)
		if err != nil {
			t.Fatalf("read events: %v (got %q)", err, got)
		}
		got += string(buf[:n])
	}
}

func TestUIUTXOHealth(t *testing.T) {
	handlerstest.ForEngine(t, func(t *testing.T, e *handlerstest.UIEnv) {
		b := e.Browser(t)
		csrf := b.Onboarded("alice")
		// 0.0005 USD is 0.1 CC at 0.005 USD/CC: the holding fee (about
		// 0.0038 CC per round) eats it within a day of rounds.
		for i := 0; i < 11; i++ {
			amount := "10"
			if i == 0 {
				amount = "0.0005"
			}
			if r := b.Post("/tap", url.Values{"csrf_token": {csrf}, "amount": {amount}}); r.Status != http.StatusSeeOther {
				t.Fatalf("tap %d = %d", i, r.Status)
			}
		}
		home := b.Get("/")
		handlerstest.MustHave(t, home, http.StatusOK, `data-testid="utxo-count">11<`, `data-testid="fragmented"`, `data-testid="dust-risk"`)
		if n := strings.Count(home.Body, `data-testid="dust-risk"`); n != 1 {
			t.Errorf("%d holdings marked at risk, want 1", n)
		}
		// 11 holdings at 0.00380518 CC per round, 144 rounds a day.
		if m := regexp.MustCompile(`Holding fee: <span class="amt" title="([0-9.]+) CC"`).FindStringSubmatch(home.Body); m == nil || m[1] != "6.0274051200" {
			t.Errorf("fee per day: %v", m)
		}
	})
}

func TestUIEventsEndWithTheSession(t *testing.T) {
	e := handlerstest.NewUIEnv(t, store.SQLite)
	b := e.Browser(t)
	csrf := b.Onboarded("alice")
	res, err := b.C.Get(e.Srv.URL + "/events")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if r := b.Post("/logout", url.Values{"csrf_token": {csrf}}); r.Status != http.StatusSeeOther {
		t.Fatalf("logout = %d", r.Status)
	}
	// The stream ends by itself: reading it to the end returns.
	if _, err := io.Copy(io.Discard, res.Body); err != nil {
		t.Fatalf("read events: %v", err)
	}
}
