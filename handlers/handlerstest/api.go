package handlerstest

import (
	"context"
	"crypto"
	"crypto/ed25519"
	"log/slog"
	"net/http"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/handlers"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/apiread"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/ccwallet/ccwallet/ledger/users"
	"github.com/ccwallet/ccwallet/web"
)

// The JSON APIs' harness: the whole app port behind httptest over a
// fresh ledger, with bearer tokens for any user (clients: client.go).

// API is a full router over a fresh ledger, with tokens for any user.
type API struct {
	T      testing.TB
	L      *ledger.Ledger
	H      http.Handler
	Clock  *ledgertest.Clock
	Signer crypto.Signer
}

const (
	KID      = "test-key"
	Audience = "https://ccwallet.test"
)

// NewAPI builds the API over ledgertest.Engines[engine] (an index, so
// handler tests need not import the store).
func NewAPI(t testing.TB, engine int) *API { return NewAPIWith(t, engine, nil) }

// NewAPIWith is NewAPI with the handlers' Config changed by set.
func NewAPIWith(t testing.TB, engine int, set func(*handlers.Config)) *API {
	t.Helper()
	_, key, err := ed25519.GenerateKey(nil) // nil: crypto/rand
	if err != nil {
		t.Fatal(err)
	}
	v, err := web.NewVerifier(web.AuthConfig{StaticKeys: map[string]crypto.PublicKey{KID: key.Public()}, Audience: Audience}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	clock := ledgertest.NewClock()
	l := ledgertest.New(t, ledgertest.Engines[engine], ledgertest.Options{Clock: clock})
	cfg := handlers.Config{Auth: v}
	if set != nil {
		set(&cfg)
	}
	return &API{T: t, L: l, H: handlers.New(l, cfg, nil).Routes(nil), Clock: clock, Signer: key}
}

// as returns a client acting as user name ("" for no token).
func (a *API) As(name string) APIClient {
	a.T.Helper()
	c := APIClient{T: a.T, H: a.H}
	if name != "" {
		tok, err := web.SignDevToken(a.Signer, KID, "", Audience, name, time.Hour)
		if err != nil {
			a.T.Fatal(err)
		}
		c.Token = tok
	}
	return c
}

// user onboards name and gives it amount coin (if not empty).
func (a *API) User(name, amount string) (APIClient, coin.PartyID) {
	a.T.Helper()
	p, err := users.Of(a.L).Onboard(context.Background(), name, "")
	if err != nil {
		a.T.Fatal(err)
	}
	if amount != "" {
		ledgertest.Mint(a.T, a.L, p, amount)
	}
	return a.As(name), p
}

// ForEachAPI runs an API test on a fresh router over each engine,
// Postgres first.
func ForEachAPI(t *testing.T, fn func(t *testing.T, a *API)) {
	for i, e := range ledgertest.Engines {
		t.Run(ledgertest.Name(e), func(t *testing.T) {
			t.Parallel()
			fn(t, NewAPI(t, i))
		})
	}
}

// ActingAs is a client with a token of user asking to act as party.
func (a *API) ActingAs(user string, party coin.PartyID) APIClient {
	a.T.Helper()
	tok, err := web.SignDevTokenActAs(a.Signer, KID, "", Audience, user, string(party), time.Hour)
	if err != nil {
		a.T.Fatal(err)
	}
	return APIClient{T: a.T, H: a.H, Token: tok}
}

// NewestOffset is the offset of the ledger's newest update.
func NewestOffset(t *testing.T, l *ledger.Ledger) int64 {
	t.Helper()
	evs, err := apiread.New(l).UpdatesAfter(context.Background(), 0, 1_000_000)
	if err != nil || len(evs) == 0 {
		t.Fatalf("updates: %d, %v", len(evs), err)
	}
	return evs[len(evs)-1].Offset
}
