package api_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/handlers"
	"github.com/ccwallet/ccwallet/handlers/handlerstest"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/ccwallet/ccwallet/ledger/users"
)

// streamedUpdate is the data of an "update" event.
type streamedUpdate struct {
	Offset    int64    `json:"offset"`
	Kind      string   `json:"kind"`
	Parties   []string `json:"parties"`
	Templates []string `json:"templates"`
}

// updateStreamAPI is the router over a real server, so streams stream.
type updateStreamAPI struct {
	*handlerstest.API
	url string
}

func newUpdateStreamAPI(t *testing.T, engine int, perUser, total int) *updateStreamAPI {
	a := handlerstest.NewAPIWith(t, engine, func(cfg *handlers.Config) {
		cfg.UpdateStreamInterval, cfg.UpdateStreamsPerUser, cfg.UpdateStreams = 100*time.Millisecond, perUser, total
	})
	srv := httptest.NewServer(a.H)
	t.Cleanup(srv.Close)
	return &updateStreamAPI{API: a, url: srv.URL}
}

// open opens the stream as user with query q; for a 200 it returns the
// updates as they arrive (the body is closed at the end of the test),
// else the status and body.
func (a *updateStreamAPI) open(t *testing.T, user string, q url.Values) (int, string, http.Header, <-chan streamedUpdate) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, a.url+"/v0/updates/stream?"+q.Encode(), nil)
	req.Header.Set("Authorization", "Bearer "+a.As(user).Token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		return res.StatusCode, string(b), res.Header, nil
	}
	ch := make(chan streamedUpdate, 100)
	br := bufio.NewReader(res.Body)
	// The first lines say the stream is open: only then is it counted.
	if line, err := br.ReadString('\n'); err != nil || !strings.HasPrefix(line, "retry:") {
		t.Fatalf("first line %q, %v", line, err)
	}
	go func() {
		defer res.Body.Close()
		event := ""
		for {
			line, err := br.ReadString('\n')
			if err != nil {
				return
			}
			line = strings.TrimSuffix(line, "\n")
			switch {
			case strings.HasPrefix(line, "event: "):
				event = strings.TrimPrefix(line, "event: ")
			case strings.HasPrefix(line, "data: ") && event == "update":
				var u streamedUpdate
				if json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &u) == nil {
					ch <- u
				}
			}
		}
	}()
	return res.StatusCode, "", res.Header, ch
}

// next waits up to 2 s for an update on ch matching want.
func next(t *testing.T, ch <-chan streamedUpdate, what string, want func(streamedUpdate) bool) streamedUpdate {
	t.Helper()
	deadline := time.After(2 * time.Second)
	for {
		select {
		case u := <-ch:
			if want(u) {
				return u
			}
		case <-deadline:
			t.Fatalf("no %s on the stream within 2 s", what)
		}
	}
}

// none says no update matching bad arrives within wait.
func none(t *testing.T, ch <-chan streamedUpdate, what string, wait time.Duration, bad func(streamedUpdate) bool) {
	t.Helper()
	deadline := time.After(wait)
	for {
		select {
		case u := <-ch:
			if bad(u) {
				t.Fatalf("%s on the stream: %+v", what, u)
			}
		case <-deadline:
			return
		}
	}
}

func has(p coin.PartyID) func(streamedUpdate) bool {
	return func(u streamedUpdate) bool { return slices.Contains(u.Parties, string(p)) }
}

// TestUpdateStream: a stream sees a transfer within 2 s; a user sees only
// the updates of their own party and may not ask for another's; an admin
// sees all and filters by party and template.
func TestUpdateStream(t *testing.T) {
	for i, e := range ledgertest.Engines {
		t.Run(ledgertest.Name(e), func(t *testing.T) {
			t.Parallel()
			a := newUpdateStreamAPI(t, i, 0, 0)
			_, alice := a.User("alice", "100")
			_, bob := a.User("bob", "")
			_, carol := a.User("carol", "")
			a.User("admin", "")
			ctx := t.Context()

			_, _, _, aliceS := a.open(t, "alice", nil)
			_, _, _, carolS := a.open(t, "carol", nil)
			_, _, _, adminAll := a.open(t, "admin", nil)
			_, _, _, adminCarol := a.open(t, "admin", url.Values{"party": {string(carol)}})
			_, _, _, installs := a.open(t, "admin", url.Values{"template": {"Splice.Wallet.Install:WalletAppInstall"}})
			if got, body, _, _ := a.open(t, "alice", url.Values{"party": {string(bob)}}); got != http.StatusForbidden || !strings.Contains(body, "only your own party") {
				t.Errorf("alice asking for bob's stream = %d %s, want 403", got, body)
			}

			if _, err := a.L.Transfer(ctx, ledger.TransferRequest{Sender: alice, Receiver: bob, Amount: coin.MustParse("5")}); err != nil {
				t.Fatal(err)
			}
			both := func(u streamedUpdate) bool { return has(alice)(u) && has(bob)(u) }
			tr := next(t, aliceS, "alice's transfer, for alice", both)
			if !slices.Contains(tr.Templates, ledger.TemplateAmulet) {
				t.Errorf("transfer's templates %v lack Amulet", tr.Templates)
			}
			next(t, adminAll, "alice's transfer, for the admin", both)
			none(t, carolS, "alice's transfer, for carol", 300*time.Millisecond, has(alice))
			none(t, adminCarol, "alice's transfer, for the admin watching carol", 0, has(alice))

			ledgertest.Mint(t, a.L, carol, "7")
			next(t, carolS, "carol's mint, for carol", has(carol))
			next(t, adminCarol, "carol's mint, for the admin watching carol", has(carol))
			none(t, aliceS, "carol's mint, for alice", 300*time.Millisecond, has(carol))

			// A stream resumed after the transfer's predecessor replays the
			// transfer, as a reconnecting EventSource would get it.
			_, _, _, resumed := a.open(t, "alice", url.Values{"after": {strconv.FormatInt(tr.Offset-1, 10)}})
			if u := next(t, resumed, "the transfer, resumed", func(streamedUpdate) bool { return true }); u.Offset != tr.Offset {
				t.Errorf("resumed stream's first update %+v, want the transfer at %d", u, tr.Offset)
			}
			for _, bad := range []string{"-1", "x", "99999999999999999999"} {
				if got, body, _, _ := a.open(t, "alice", url.Values{"after": {bad}}); got != http.StatusBadRequest || !strings.Contains(body, "must be an update offset") {
					t.Errorf("after=%s = %d %s, want 400", bad, got, body)
				}
			}

			dave, err := users.Of(a.L).Onboard(ctx, "dave", "")
			if err != nil {
				t.Fatal(err)
			}
			// The first update the filter lets through is dave's onboarding:
			// the transfer and the mint before it made no install.
			if u := next(t, installs, "an update, for the WalletAppInstall filter", func(streamedUpdate) bool { return true }); !has(dave)(u) {
				t.Errorf("the WalletAppInstall filter let %+v through", u)
			}
		})
	}
}

// TestUpdateStreamCaps: past the caps per user and in all the stream
// answers 429 with Retry-After; a closed stream frees its place.
func TestUpdateStreamCaps(t *testing.T) {
	for i, e := range ledgertest.Engines {
		t.Run(ledgertest.Name(e), func(t *testing.T) {
			t.Parallel()
			a := newUpdateStreamAPI(t, i, 2, 3)
			a.User("alice", "")
			a.User("bob", "")
			a.open(t, "alice", nil)
			a.open(t, "alice", nil)
			got, body, hdr, _ := a.open(t, "alice", nil)
			if got != http.StatusTooManyRequests || !strings.Contains(body, "too many update streams for this user") || hdr.Get("Retry-After") == "" {
				t.Fatalf("alice's third stream = %d %q Retry-After %q, want 429", got, body, hdr.Get("Retry-After"))
			}
			a.open(t, "bob", nil)
			if got, body, _, _ := a.open(t, "bob", nil); got != http.StatusTooManyRequests || !strings.Contains(body, "too many update streams open") {
				t.Fatalf("the fourth stream = %d %q, want 429", got, body)
			}
		})
	}
}
