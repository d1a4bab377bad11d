package bench

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/ccwallet/ccwallet/ledger/users"
)

// BenchmarkOffersPageUnderSpam: server time to render a receiver's Offers
// page (GET /offers, the newest 25 of its offers) and home page with
// 3,000 open offers waiting, on Postgres (issue 38: the Offers page took
// 0.71 s and 6.6 MB at 3,000 offers; aim p50 < 50 ms). The offers come
// from 150 senders, 20 each, the default cap of one sender's open offers
// to one receiver.
func BenchmarkOffersPageUnderSpam(b *testing.B) {
	ctx := context.Background()
	e := newHTTPEnv(b)
	bob, err := users.Of(e.l).Onboard(ctx, "bob", "")
	if err != nil {
		b.Fatal(err)
	}
	per := ledger.DefaultOfferLimits.MaxOpenPerReceiver
	for s := range 3000 / per {
		sender, err := users.Of(e.l).Onboard(ctx, fmt.Sprintf("spammer-%d", s), "")
		if err != nil {
			b.Fatal(err)
		}
		if _, err := ledgertest.Dev(b, e.l).Mint(ctx, sender, coin.FromInt(int64(per)), "bench"); err != nil {
			b.Fatal(err)
		}
		for i := range per {
			if _, _, err := e.l.Offers().Create(ctx, ledger.OfferRequest{Sender: sender, Receiver: bob, Amount: ledger.DefaultOfferLimits.MinAmount,
				Description: "spam", ExpiresAt: e.l.Now().Add(24 * time.Hour), TrackingID: fmt.Sprintf("spam-%d", i)}); err != nil {
				b.Fatal(err)
			}
		}
	}
	cookie := e.sessionCookie("bob")
	page := func(path string) func() error {
		return func() error {
			req, _ := http.NewRequest(http.MethodGet, e.srv.URL+path, nil)
			req.AddCookie(cookie)
			status, body, err := e.do(req)
			if err == nil && status != http.StatusOK {
				err = fmt.Errorf("GET %s = %d: %.300s", path, status, body)
			}
			return err
		}
	}
	b.ResetTimer()
	for b.Loop() {
		for _, path := range []string{"/offers", "/"} {
			for range 10 { // warm up
				if err := page(path)(); err != nil {
					b.Fatal(err)
				}
			}
			lat, err := e.timed(path, pageRequests, page(path))
			if err != nil {
				b.Fatal(err)
			}
			p50, p99 := quantile(lat, 0.5), quantile(lat, 0.99)
			b.ReportMetric(float64(p50)/1e6, "p50-ms"+path)
			row(fmt.Sprintf("GET %s with 3,000 open offers waiting, Postgres (server time p50 of %d)", path, pageRequests),
				ms(p50), "0.71 s for /offers before paging (issue 38)", fmt.Sprintf("aim p50 < 50 ms; p99 %s", ms(p99)))
		}
	}
}
