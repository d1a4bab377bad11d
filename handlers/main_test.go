package handlers_test

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
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/ccwallet/ccwallet/web"
)

func TestMain(m *testing.M) { ledgertest.Main(m) }

// testAPI is a full router over a fresh ledger, with tokens for any user.
type testAPI struct {
	t      testing.TB
	l      *ledger.Ledger
	h      http.Handler
	clock  *ledgertest.Clock
	signer crypto.Signer
}

const (
	testKID      = "test-key"
	testAudience = "https://ccwallet.test"
)

// newTestAPI builds the API over ledgertest.Engines[engine] (an index, so
// handler tests need not import the store).
func newTestAPI(t testing.TB, engine int) *testAPI { return newTestAPIWith(t, engine, nil) }

// newTestAPIWith is newTestAPI with the handlers' Config changed by set.
func newTestAPIWith(t testing.TB, engine int, set func(*handlers.Config)) *testAPI {
	t.Helper()
	_, key, err := ed25519.GenerateKey(nil) // nil: crypto/rand
	if err != nil {
		t.Fatal(err)
	}
	v, err := web.NewVerifier(web.AuthConfig{StaticKeys: map[string]crypto.PublicKey{testKID: key.Public()}, Audience: testAudience}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	clock := ledgertest.NewClock()
	l := ledgertest.New(t, ledgertest.Engines[engine], ledgertest.Options{Clock: clock})
	cfg := handlers.Config{Auth: v}
	if set != nil {
		set(&cfg)
	}
	return &testAPI{t: t, l: l, h: handlers.New(l, cfg, nil).Routes(nil), clock: clock, signer: key}
}

// as returns a client acting as user name ("" for no token).
func (a *testAPI) as(name string) apiClient {
	a.t.Helper()
	c := apiClient{t: a.t, h: a.h}
	if name != "" {
		tok, err := web.SignDevToken(a.signer, testKID, "", testAudience, name, time.Hour)
		if err != nil {
			a.t.Fatal(err)
		}
		c.token = tok
	}
	return c
}

// user onboards name and gives it amount coin (if not empty).
func (a *testAPI) user(name, amount string) (apiClient, coin.PartyID) {
	a.t.Helper()
	p, err := a.l.Onboard(context.Background(), name, "")
	if err != nil {
		a.t.Fatal(err)
	}
	if amount != "" {
		ledgertest.Mint(a.t, a.l, p, amount)
	}
	return a.as(name), p
}

// forEachEngine runs an API test on a fresh router over each engine,
// Postgres first.
func forEachEngine(t *testing.T, fn func(t *testing.T, a *testAPI)) {
	for i, e := range ledgertest.Engines {
		t.Run(ledgertest.Name(e), func(t *testing.T) {
			t.Parallel()
			fn(t, newTestAPI(t, i))
		})
	}
}
