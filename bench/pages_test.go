package bench

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/ccwallet/ccwallet/ledger/users"
)

// pageRequests is how many times each page is fetched for its quantiles.
const pageRequests = 200

// BenchmarkHomePage: server time to render the home page (GET / through
// the web wallet's session, compressed as the client accepts gzip, as a
// browser does) for a user with 1,000 holdings and 100,000 history rows on
// Postgres, and the bytes of a first visit: the home HTML and every
// same-origin stylesheet and script it references, as transferred with
// Accept-Encoding: gzip and, for reference, uncompressed.
func BenchmarkHomePage(b *testing.B) {
	ctx := context.Background()
	e := newHTTPEnv(b)
	p := seededUser(b, e, "home")
	seedHistory(b, e, p, 100_000)
	// 999 more holdings, minted through the ledger's own mint path (the
	// seed transfer left one); varied amounts so the sort does work.
	as := make([]coin.Amount, 999)
	for i := range as {
		as[i] = coin.MustParse(fmt.Sprintf("%d.%d", 1+i%500, i%10))
	}
	if err := ledgertest.Dev(b, e.l).MintBulk(ctx, p, as); err != nil {
		b.Fatal(err)
	}
	bal, err := e.l.Balance(ctx, p)
	if err != nil {
		b.Fatal(err)
	}
	cookie := e.sessionCookie("home")
	get := func(path string) (int, []byte, error) {
		req, _ := http.NewRequest(http.MethodGet, e.srv.URL+path, nil)
		req.AddCookie(cookie)
		return e.do(req)
	}
	home := func() error {
		status, body, err := get("/")
		if err == nil && status != http.StatusOK {
			err = fmt.Errorf("GET / = %d: %.300s", status, body)
		}
		return err
	}

	// A fresh user with one holding, for the size of a typical first visit.
	fresh, err := users.Of(e.l).Onboard(ctx, "fresh", "")
	if err != nil {
		b.Fatal(err)
	}
	if _, err := ledgertest.Dev(b, e.l).Mint(ctx, fresh, coin.MustParse("100"), "bench"); err != nil {
		b.Fatal(err)
	}
	freshCookie := e.sessionCookie("fresh")

	b.ResetTimer()
	for b.Loop() {
		for range 10 { // warm up
			if err := home(); err != nil {
				b.Fatal(err)
			}
		}
		cpu0 := processCPU()
		lat, err := e.timed("/", pageRequests, home)
		if err != nil {
			b.Fatal(err)
		}
		// The process's CPU per visit (wallet and its in-process client;
		// Postgres's is not in it): steadier than the wall time on a shared
		// machine, so changes are compared by it too.
		cpu := (processCPU() - cpu0) / pageRequests
		p50, p99 := quantile(lat, 0.5), quantile(lat, 0.99)
		b.ReportMetric(float64(p50)/1e6, "p50-ms")
		b.ReportMetric(float64(p99)/1e6, "p99-ms")
		b.ReportMetric(float64(cpu)/1e6, "cpu-ms/visit")
		row(fmt.Sprintf("Home page render, %d holdings + 100,000 history rows, Postgres (server time p50 of %d)", bal.Count, pageRequests),
			ms(p50), "", fmt.Sprintf("aim p50 < 5 ms; p99 %s; CPU per visit %s (wallet and client)", ms(p99), ms(cpu)))

		gz := firstVisit(b, e, cookie, "gzip")
		plain := firstVisit(b, e, cookie, "identity")
		freshGz := firstVisit(b, e, freshCookie, "gzip")
		freshPlain := firstVisit(b, e, freshCookie, "identity")
		b.ReportMetric(float64(gz.total)/1024, "first-visit-KiB")
		b.ReportMetric(float64(plain.total)/1024, "first-visit-plain-KiB")
		row(fmt.Sprintf("First visit bytes, home HTML + same-origin CSS/JS, %d holdings (Accept-Encoding: gzip)", bal.Count),
			kib(gz.total), "", fmt.Sprintf("aim < 100 KB; HTML %s, assets %s; uncompressed %s (HTML %s); a user with 1 holding: %s gzip, %s uncompressed",
				kib(gz.html), kib(gz.total-gz.html), kib(plain.total), kib(plain.html), kib(freshGz.total), kib(freshPlain.total)))
	}
}

// visitBytes is what a first visit transferred: the bodies of all
// responses and of the HTML alone, as sent (compressed when asked for).
type visitBytes struct{ total, html int }

// firstVisit fetches the home page and every same-origin stylesheet and
// script it references, as a browser with an empty cache does, sending
// acceptEncoding ("gzip" as browsers do, "identity" for none), and
// returns the body bytes as they came over the wire. Setting the header
// by hand keeps the client from decompressing, so len(body) is what was
// transferred.
func firstVisit(b *testing.B, e *httpEnv, cookie *http.Cookie, acceptEncoding string) visitBytes {
	get := func(path string) (wire, plain []byte) {
		req, _ := http.NewRequest(http.MethodGet, e.srv.URL+path, nil)
		req.AddCookie(cookie)
		req.Header.Set("Accept-Encoding", acceptEncoding)
		res, err := e.client.Do(req)
		if err != nil {
			b.Fatalf("GET %s: %v", path, err)
		}
		defer res.Body.Close()
		wire, err = io.ReadAll(res.Body)
		if err != nil || res.StatusCode != http.StatusOK {
			b.Fatalf("GET %s = %d, %v", path, res.StatusCode, err)
		}
		switch ce := res.Header.Get("Content-Encoding"); ce {
		case "":
			return wire, wire
		case "gzip":
			zr, err := gzip.NewReader(bytes.NewReader(wire))
			if err == nil {
				plain, err = io.ReadAll(zr)
			}
			if err != nil {
				b.Fatalf("GET %s: gunzip: %v", path, err)
			}
			return wire, plain
		default:
			b.Fatalf("GET %s with Accept-Encoding %q sent Content-Encoding %q", path, acceptEncoding, ce)
			return nil, nil
		}
	}
	page, html := get("/")
	v := visitBytes{total: len(page), html: len(page)}
	assets := sameOriginAssets(string(html))
	if len(assets) == 0 {
		b.Fatalf("home page references no assets: %.500s", html)
	}
	for _, a := range assets {
		wire, _ := get(a)
		v.total += len(wire)
	}
	return v
}

func kib(n int) string { return fmt.Sprintf("%.1f KB", float64(n)/1000) }

// BenchmarkHistoryPage: the first history page, newest first, through the
// JSON API (POST /v0/wallet/transactions, page_size 25) and the web
// wallet (GET /history, 25 rows) for a user with 100,000 and then
// 1,000,000 history rows on Postgres (aim: the same within 20%).
func BenchmarkHistoryPage(b *testing.B) {
	e := newHTTPEnv(b)
	p := seededUser(b, e, "hist")
	cookie := e.sessionCookie("hist")
	token := e.token("hist")
	api := func() error {
		req, _ := http.NewRequest(http.MethodPost, e.srv.URL+"/v0/wallet/transactions", strings.NewReader(`{"page_size":25}`))
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/json")
		status, body, err := e.do(req)
		if err == nil && (status != http.StatusOK || strings.Count(string(body), `"event_id"`) != 25) {
			err = fmt.Errorf("POST /v0/wallet/transactions = %d: %.300s", status, body)
		}
		return err
	}
	ui := func() error {
		req, _ := http.NewRequest(http.MethodGet, e.srv.URL+"/history", nil)
		req.AddCookie(cookie)
		status, body, err := e.do(req)
		if err == nil && status != http.StatusOK {
			err = fmt.Errorf("GET /history = %d: %.300s", status, body)
		}
		return err
	}
	measure := func() (apiP50, uiP50, apiP99, uiP99 time.Duration) {
		for range 10 { // warm up
			if err := api(); err != nil {
				b.Fatal(err)
			}
			if err := ui(); err != nil {
				b.Fatal(err)
			}
		}
		al, err := e.timed("/v0/wallet/transactions", pageRequests, api)
		if err != nil {
			b.Fatal(err)
		}
		ul, err := e.timed("/history", pageRequests, ui)
		if err != nil {
			b.Fatal(err)
		}
		return quantile(al, 0.5), quantile(ul, 0.5), quantile(al, 0.99), quantile(ul, 0.99)
	}

	b.ResetTimer()
	for b.Loop() {
		b.StopTimer()
		seedHistory(b, e, p, 100_000)
		b.StartTimer()
		a1, u1, a1p99, u1p99 := measure()
		b.StopTimer()
		t0 := time.Now()
		seedHistory(b, e, p, 1_000_000)
		b.Logf("seeded 900,000 more history rows in %s", time.Since(t0).Round(time.Millisecond))
		b.StartTimer()
		a2, u2, a2p99, u2p99 := measure()
		b.ReportMetric(float64(a1)/1e6, "api-100k-p50-ms")
		b.ReportMetric(float64(a2)/1e6, "api-1M-p50-ms")
		b.ReportMetric(float64(u1)/1e6, "ui-100k-p50-ms")
		b.ReportMetric(float64(u2)/1e6, "ui-1M-p50-ms")
		row("History first page, 100,000 rows, Postgres (server time p50, API / web; 25 rows)", ms(a1)+" / "+ms(u1), "",
			fmt.Sprintf("p99 %s / %s", ms(a1p99), ms(u1p99)))
		row("History first page, 1,000,000 rows, Postgres (server time p50, API / web; 25 rows)", ms(a2)+" / "+ms(u2), "",
			fmt.Sprintf("aim within 20%% of 100,000 rows: API %+.0f%%, web %+.0f%%; p99 %s / %s",
				100*(float64(a2)/float64(a1)-1), 100*(float64(u2)/float64(u1)-1), ms(a2p99), ms(u2p99)))
	}
}

// seededUser onboards user with a preapproved peer and makes one real
// transfer, so the user has one holding (the change) and one history
// row of a real send, the row seedHistory copies.
func seededUser(b *testing.B, e *httpEnv, user string) coin.PartyID {
	ctx := context.Background()
	p, err := users.Of(e.l).Onboard(ctx, user, "")
	if err != nil {
		b.Fatal(err)
	}
	peer, err := users.Of(e.l).Onboard(ctx, user+"-peer", "")
	if err != nil {
		b.Fatal(err)
	}
	if _, _, err := e.l.Preapprovals().Create(ctx, peer); err != nil {
		b.Fatal(err)
	}
	if _, err := ledgertest.Dev(b, e.l).Mint(ctx, p, coin.MustParse("1000"), "bench"); err != nil {
		b.Fatal(err)
	}
	if _, err := e.l.Preapprovals().Send(ctx, ledger.PreapprovalSend{Sender: p, Receiver: peer, Amount: coin.MustParse("1"), DeduplicationID: "seed"}); err != nil {
		b.Fatal(err)
	}
	return p
}

// seedHistory brings party's history to n rows with one INSERT ... SELECT
// generate_series copying its newest row, a send both sides read: every
// other copy is turned round, so half the rows are the party's as the
// sender and half as the receiver, each read through its own index.
// History rows are the wallet's record, not money: the ledger's
// conservation is untouched.
func seedHistory(b *testing.B, e *httpEnv, party coin.PartyID, n int) {
	ctx := context.Background()
	var have int
	if err := e.db.NewRaw("SELECT count(*) FROM history WHERE party = ? OR counterparty = ? AND counter_amount IS NOT NULL", party, party).Scan(ctx, &have); err != nil {
		b.Fatal(err)
	}
	if have >= n {
		return
	}
	_, err := e.db.ExecContext(ctx, `INSERT INTO history (offset_id, party, kind, subtype, counterparty, amount, fees, description, round, record_time, details, counter_amount, counter_fees)
		SELECT h.offset_id, CASE WHEN g % 2 = 0 THEN h.party ELSE h.counterparty END, h.kind, h.subtype,
			CASE WHEN g % 2 = 0 THEN h.counterparty ELSE h.party END,
			CASE WHEN g % 2 = 0 THEN h.amount ELSE h.counter_amount END, CASE WHEN g % 2 = 0 THEN h.fees ELSE h.counter_fees END,
			h.description, h.round, h.record_time, h.details,
			CASE WHEN g % 2 = 0 THEN h.counter_amount ELSE h.amount END, CASE WHEN g % 2 = 0 THEN h.counter_fees ELSE h.fees END
		FROM (SELECT * FROM history WHERE party = ? AND counter_amount IS NOT NULL ORDER BY id DESC LIMIT 1) AS h, generate_series(1, ?) AS g`, party, n-have)
	if err != nil {
		b.Fatal(err)
	}
	// As autovacuum would soon after such a load.
	if _, err := e.db.ExecContext(ctx, "ANALYZE history"); err != nil {
		b.Fatal(err)
	}
}
