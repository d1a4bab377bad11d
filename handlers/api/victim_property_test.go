package api_test

import (
	"crypto/ed25519"
	"encoding/json"
	"fmt"
	"math"
	"math/rand"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/handlers"
	"github.com/ccwallet/ccwallet/handlers/handlerstest"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/expiry"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
)

// victimReads calls every read endpoint of party's user (and the admin's
// views of it) and fails the test on any answer but 200: nothing another
// party did may break them. It also accepts and rejects what the victim was
// sent: each must answer, never 500.
func victimReads(t *testing.T, a *handlerstest.API, user string, party coin.PartyID, external bool) {
	t.Helper()
	admin := a.As("admin")
	var reads []struct{ method, path string }
	add := func(method, path string) { reads = append(reads, struct{ method, path string }{method, path}) }
	if external {
		add("GET", "/v0/admin/external-party/balance?party_id="+string(party))
	} else {
		for _, p := range []string{"user-status", "balance", "amulets", "coins", "transfer-offers", "accepted-transfer-offers",
			"token-standard/transfers", "app-reward-coupons", "validator-reward-coupons", "validator-liveness-activity-records",
			"merge-delegations", "minting-delegation-proposals", "minting-delegations", "validator-faucet-coupons", "sv-reward-coupons"} {
			add("GET", "/v0/wallet/"+p)
		}
		add("POST", "/v0/wallet/transactions")
		for _, sp := range []string{"open-and-issuing-mining-rounds", "amulet-rules", "dso-party-id"} {
			add("GET", "/v0/scan-proxy/"+sp)
		}
	}
	add("GET", "/v0/admin/transfer-preapprovals")
	add("GET", "/v0/admin/users")
	add("GET", "/v0/admin/external-party/setup-proposal")
	add("GET", "/v0/admin/domain/data-snapshot?timestamp=2020-01-01T00:00:00Z")
	c := a.As(user)
	for _, rd := range reads {
		client := c
		if strings.HasPrefix(rd.path, "/v0/admin/") {
			client = admin
		}
		var body any
		if rd.method == "POST" {
			body = map[string]any{"page_size": 1000}
		}
		if r := client.Raw(rd.method, rd.path, body); r.Status != http.StatusOK {
			t.Errorf("%s read %s %s = %d %s", user, rd.method, rd.path, r.Status, r.Body)
		}
	}
	if external {
		return
	}
	// The web wallet's pages of the victim, logged in through the real
	// OIDC flow on the same ledger (whose development provider knows
	// alice and bob).
	b := handlerstest.NewUIEnvOn(t, a.L, nil, func(*handlers.Config) {}).Browser(t)
	b.Login(user)
	for _, page := range []string{"/", "/holdings", "/history", "/history.csv", "/send", "/offers", "/approvals", "/traffic", "/allocations"} {
		if r := b.Get(page); r.Status != http.StatusOK {
			t.Errorf("%s page %s = %d %.300s", user, page, r.Status, r.Body)
		}
	}
	// What the victim was sent can still be answered: the registry's
	// choice contexts, then accept, reject.
	for _, cid := range listedIDs(t, c, "/v0/wallet/token-standard/transfers", "transfers") {
		path := "/registry/transfer-instruction/v1/" + cid + "/choice-contexts/accept"
		if r := c.Raw("POST", path, map[string]any{}); r.Status >= 500 {
			t.Errorf("%s %s = %d %s", user, path, r.Status, r.Body)
		}
	}
	moveAll(t, c, user, "/v0/wallet/transfer-offers", "offers", "accept", "reject")
	moveAll(t, c, user, "/v0/wallet/token-standard/transfers", "transfers", "reject", "accept")
}

// moveAll lists the contracts at path (under key) and moves each, the
// moves taken in turn; none may answer 500.
func moveAll(t *testing.T, c handlerstest.APIClient, user, path, key string, moves ...string) {
	t.Helper()
	for i, cid := range listedIDs(t, c, path, key) {
		move := moves[i%len(moves)]
		if r := c.Raw("POST", path+"/"+cid+"/"+move, map[string]any{}); r.Status >= 500 {
			t.Errorf("%s %s %s = %d %s", user, move, cid, r.Status, r.Body)
		}
	}
}

// listedIDs is the contract ids of the list at path (under key).
func listedIDs(t *testing.T, c handlerstest.APIClient, path, key string) []string {
	t.Helper()
	var list map[string][]struct {
		ContractID string `json:"contract_id"`
	}
	if r := c.Raw("GET", path, nil); r.Status == http.StatusOK {
		r.JSON(t, &list)
	}
	var ids []string
	for _, k := range list[key] {
		ids = append(ids, k.ContractID)
	}
	return ids
}

// micros converts t to the wallet API's unix microseconds.
func micros(t time.Time) int64 { return t.UnixMicro() }

var (
	year10000 = time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)
	year9999  = time.Date(9999, 12, 31, 23, 59, 59, 999999000, time.UTC)
	year0001  = time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC)
)

// TestRequestBounds: a time past the documented range (issue 21: year
// 10000 was stored, and SQLite could never read it back, so the
// receiver's and the sender's reads answered 500) and an amount that
// converts past the 28-digit limit (the faucet: SQLite stored 31 digits,
// Postgres answered 500) are refused with 400 naming the field, on both
// engines, and every read of both parties still answers 200.
func TestRequestBounds(t *testing.T) {
	handlerstest.ForEachAPI(t, func(t *testing.T, a *handlerstest.API) {
		alice, _ := a.User("alice", "1000")
		_, bobPID := a.User("bob", "")
		bobPreapproval, _, err := a.L.Preapprovals().Create(t.Context(), bobPID)
		if err != nil {
			t.Fatal(err)
		}
		admin := a.As("admin")
		op := a.L.Operator()
		sync := a.L.SynchronizerID()
		huge := "1" + strings.Repeat("0", 27) // 28 digits of USD: 2e29 coin at 0.005
		cases := []struct {
			name, path, field string
			c                 handlerstest.APIClient
			body              map[string]any
		}{
			{"offer in year 10000", "/v0/wallet/transfer-offers", "expires_at", alice,
				map[string]any{"receiver_party_id": bobPID, "amount": "1", "description": "x", "expires_at": micros(year10000), "tracking_id": "o1"}},
			{"offer at int64 max", "/v0/wallet/transfer-offers", "expires_at", alice,
				map[string]any{"receiver_party_id": bobPID, "amount": "1", "description": "x", "expires_at": int64(math.MaxInt64), "tracking_id": "o2"}},
			{"instruction in year 10000", "/v0/wallet/token-standard/transfers", "expires_at", alice,
				map[string]any{"receiver_party_id": bobPID, "amount": "1", "description": "x", "expires_at": micros(year10000), "tracking_id": "i1"}},
			{"traffic in year 10000", "/v0/wallet/buy-traffic-requests", "expires_at", alice,
				map[string]any{"receiving_validator_party_id": op, "domain_id": sync, "traffic_amount": 200_000, "tracking_id": "b1", "expires_at": micros(year10000)}},
			{"traffic past the limit", "/v0/wallet/buy-traffic-requests", "traffic_amount", alice,
				map[string]any{"receiving_validator_party_id": op, "domain_id": sync, "traffic_amount": int64(math.MaxInt64), "tracking_id": "b2", "expires_at": micros(a.Clock.Now().Add(time.Hour))}},
			{"tap past the limit", "/v0/wallet/tap", "amount", alice, map[string]any{"amount": huge}},
			{"tap with a huge command id", "/v0/wallet/tap", "command_id", alice, map[string]any{"amount": "1", "command_id": strings.Repeat("x", 100_000)}},
			{"send with a huge deduplication id", "/v0/wallet/transfer-preapproval/send", "deduplication_id", alice,
				map[string]any{"receiver_party_id": bobPID, "amount": "1", "deduplication_id": strings.Repeat("x", 100_000)}},
			{"send with a huge description", "/v0/wallet/transfer-preapproval/send", "description", alice,
				map[string]any{"receiver_party_id": bobPID, "amount": "1", "deduplication_id": "d1", "description": strings.Repeat("x", 100_000)}},
			{"reassignment to a huge synchronizer id", "/v0/admin/devnet/reassignments", "target_synchronizer_id", admin,
				map[string]any{"contract_id": bobPreapproval, "target_synchronizer_id": strings.Repeat("x", 100_000)}},
			{"instruction with a huge tracking id", "/v0/wallet/token-standard/transfers", "tracking_id", alice,
				map[string]any{"receiver_party_id": bobPID, "amount": "1", "description": "x", "expires_at": micros(a.Clock.Now().Add(time.Hour)), "tracking_id": strings.Repeat("é", 200)}},
			{"admin tap past the limit", "/v0/admin/devnet/tap", "amount", admin, map[string]any{"party_id": bobPID, "amount": huge}},
		}
		for _, c := range cases {
			r := c.c.Raw("POST", c.path, c.body)
			if r.Status != http.StatusBadRequest || !strings.HasPrefix(r.Error(), c.field+":") {
				t.Errorf("%s = %d %s, want 400 naming %s", c.name, r.Status, r.Body, c.field)
			}
		}
		// One description rule for every way of sending: fewer than 280
		// characters, however many bytes they take.
		for i, path := range []string{"/v0/wallet/transfer-offers", "/v0/wallet/token-standard/transfers"} {
			for j, c := range []struct {
				description string
				want        int
			}{{strings.Repeat("é", 279), http.StatusOK}, {strings.Repeat("x", 280), http.StatusBadRequest}} {
				r := alice.Raw("POST", path, map[string]any{"receiver_party_id": bobPID, "amount": "1", "description": c.description,
					"expires_at": micros(a.Clock.Now().Add(time.Hour)), "tracking_id": fmt.Sprint("d", i, j)})
				if r.Status != c.want || c.want == http.StatusBadRequest && !strings.HasPrefix(r.Error(), "description:") {
					t.Errorf("%s with %d characters of description = %d %s, want %d", path, len([]rune(c.description)), r.Status, r.Body, c.want)
				}
			}
		}
		// The last moment of the range is taken, and read back on both engines.
		if r := alice.Raw("POST", "/v0/wallet/transfer-offers", map[string]any{"receiver_party_id": bobPID, "amount": "1",
			"description": "x", "expires_at": micros(year9999), "tracking_id": "o3"}); r.Status != http.StatusOK {
			t.Errorf("offer at the end of 9999 = %d %s", r.Status, r.Body)
		}
		victimReads(t, a, "alice", "", false)
		victimReads(t, a, "bob", bobPID, false)
		ledgertest.Conserved(t, a.L)
	})
}

// TestVictimProperty: no request of one party may make another party's
// reads fail. Attackers (a local user and an external party) do every
// creatable thing to a victim with seeded random extreme values, plus
// hand-picked ones: times in years 1, 9999 and 10000, negative and int64
// limits; amounts of 28 and more digits, 11 decimals, negative, not
// numbers; huge, RTL, emoji, NUL and invalid UTF-8 text; deep and huge
// meta maps. No request may answer 500, and afterwards every read of the
// victims and of the attackers answers 200 and the ledger is conserved,
// on both engines.
func TestVictimProperty(t *testing.T) {
	handlerstest.ForEachAPI(t, func(t *testing.T, a *handlerstest.API) {
		rng := rand.New(rand.NewSource(21))
		attacker, attackerPID := a.User("alice", "")
		_, victim := a.User("bob", "10")
		victimPreapproval, _, err := a.L.Preapprovals().Create(t.Context(), victim)
		if err != nil {
			t.Fatal(err)
		}
		admin := a.As("admin")
		ext, extKey := ledgertest.ExternalParty(t, a.L, "ext-attacker")
		extVictim, _ := ledgertest.ExternalParty(t, a.L, "ext-victim")
		for _, p := range []coin.PartyID{attackerPID, ext} {
			if r := admin.Raw("POST", "/v0/admin/devnet/tap", map[string]any{"party_id": p, "amount": "100000"}); r.Status != http.StatusOK {
				t.Fatalf("fund %s: %d %s", p, r.Status, r.Body)
			}
		}
		now := a.Clock.Now()
		timesMicros := []int64{micros(year10000), micros(year9999), micros(year0001), -1, 0, math.MaxInt64, math.MinInt64,
			micros(now.Add(time.Hour)), micros(now.Add(-time.Hour)), micros(now.AddDate(100, 0, 0))}
		// Each generator gives a value the ledger takes (an extreme but
		// valid one) half the time, so that such values get stored.
		validTimes := []int64{micros(year9999), micros(now.Add(time.Microsecond)), micros(now.Add(time.Hour)), micros(now.AddDate(100, 0, 0))}
		timeMicros := func() int64 {
			switch rng.Intn(6) {
			case 0, 1, 2:
				return validTimes[rng.Intn(len(validTimes))]
			case 3:
				return rng.Int63() - rng.Int63()
			default:
				return timesMicros[rng.Intn(len(timesMicros))]
			}
		}
		timeText := func() string {
			switch rng.Intn(4) {
			case 0:
				return "10000-01-01T00:00:00Z"
			case 1:
				return time.UnixMicro(timeMicros()).UTC().Format(time.RFC3339Nano)
			case 2:
				return []string{"0001-01-01T00:00:00Z", "9999-12-31T23:59:59.999999Z", "+10000-01-01T00:00:00Z", "", "x"}[rng.Intn(5)]
			default:
				return now.Add(time.Hour).Format(time.RFC3339Nano)
			}
		}
		amounts := []string{"1", "0.0000000001", "0.00000000001", strings.Repeat("9", 28), strings.Repeat("9", 28) + "." + strings.Repeat("9", 10),
			strings.Repeat("9", 29), "1" + strings.Repeat("0", 27), "-1", "0", "1e3", "NaN", "", " 1 ", "00000000000000000000000000000001",
			"99999", "12345678901234567890.1234567890"}
		amount := func() string {
			if rng.Intn(2) == 0 {
				return fmt.Sprintf("%d.%010d", rng.Intn(100), rng.Intn(1e10))
			}
			return amounts[rng.Intn(len(amounts))]
		}
		texts := []string{"", "x", strings.Repeat("é", 279), strings.Repeat("é", 280), strings.Repeat("x", 100_000),
			"a\x00b", handlerstest.InvalidUTF8, "\u202eevil\u202c", strings.Repeat("😀", 300), "😀", "e\u0301\u0301\u0301", "<script>alert(1)</script>",
			"'; DROP TABLE holdings; --", "\r\n\t", strings.Repeat("\u200b", 50)}
		validTexts := []string{"", "x", strings.Repeat("é", 139), "\u202eevil\u202c", strings.Repeat("😀", 60), "e\u0301\u0301\u0301",
			"<script>alert(1)</script>", "'; DROP TABLE holdings; --", "\r\n\t", strings.Repeat("\u200b", 50), "שלום עולם", "\ufeff\u2028"}
		text := func() string {
			if rng.Intn(2) == 0 {
				return validTexts[rng.Intn(len(validTexts))]
			}
			if rng.Intn(4) == 0 {
				b := make([]byte, rng.Intn(400))
				rng.Read(b)
				return string(b) // arbitrary bytes: mostly invalid UTF-8 (json.Marshal replaces it)
			}
			return texts[rng.Intn(len(texts))]
		}
		meta := func() any {
			switch rng.Intn(3) {
			case 0:
				var deep any = "leaf"
				for range 5000 {
					deep = map[string]any{"k": deep}
				}
				return deep
			case 1:
				m := map[string]any{}
				for i := range 2000 {
					m[fmt.Sprint("key", i)] = texts[i%len(texts)][:min(len(texts[i%len(texts)]), 300)]
				}
				return m
			default:
				return map[string]any{handlerstest.InvalidUTF8: "\x00", "": nil}
			}
		}
		tracking := 0
		id := func() string {
			tracking++
			if rng.Intn(5) == 0 {
				return text()
			}
			return fmt.Sprint("t", tracking)
		}
		receiver := func() any {
			if rng.Intn(4) == 0 {
				return extVictim
			}
			return victim
		}
		ops := []func() (handlerstest.APIClient, string, map[string]any){
			func() (handlerstest.APIClient, string, map[string]any) {
				return attacker, "/v0/wallet/transfer-offers", map[string]any{"receiver_party_id": receiver(), "amount": amount(),
					"description": text(), "expires_at": timeMicros(), "tracking_id": id(), "meta": meta()}
			},
			func() (handlerstest.APIClient, string, map[string]any) {
				return attacker, "/v0/wallet/token-standard/transfers", map[string]any{"receiver_party_id": receiver(), "amount": amount(),
					"description": text(), "expires_at": timeMicros(), "tracking_id": id(), "meta": meta()}
			},
			func() (handlerstest.APIClient, string, map[string]any) {
				return attacker, "/v0/wallet/transfer-preapproval/send", map[string]any{"receiver_party_id": receiver(), "amount": amount(),
					"deduplication_id": id(), "description": text()}
			},
			func() (handlerstest.APIClient, string, map[string]any) {
				return attacker, "/v0/wallet/buy-traffic-requests", map[string]any{"receiving_validator_party_id": a.L.Operator(),
					"domain_id": a.L.SynchronizerID(), "traffic_amount": []int64{200_000, math.MaxInt64, -1, 1 << 40, 1<<40 + 1}[rng.Intn(5)],
					"tracking_id": id(), "expires_at": timeMicros()}
			},
			func() (handlerstest.APIClient, string, map[string]any) {
				return attacker, "/v0/wallet/tap", map[string]any{"amount": amount(), "command_id": id()}
			},
			func() (handlerstest.APIClient, string, map[string]any) {
				return admin, "/v0/admin/devnet/tap", map[string]any{"party_id": receiver(), "amount": amount(), "command_id": id()}
			},
			func() (handlerstest.APIClient, string, map[string]any) {
				return attacker, "/registry/transfer-instruction/v1/transfer-factory", map[string]any{"choiceArguments": map[string]any{
					"expectedAdmin": a.L.DSO(), "transfer": map[string]any{"sender": attackerPID, "receiver": receiver(), "amount": amount(),
						"requestedAt": timeText(), "executeBefore": timeText(), "instrumentId": map[string]any{"admin": a.L.DSO(), "id": ledger.InstrumentID},
						"meta": map[string]any{"values": meta()}}, "extraArgs": map[string]any{"meta": meta()}}}
			},
			func() (handlerstest.APIClient, string, map[string]any) {
				return attacker, "/v0/wallet/transfer-preapproval", map[string]any{"meta": meta()}
			},
			func() (handlerstest.APIClient, string, map[string]any) {
				return attacker, "/v0/wallet/merge-delegation-proposals", map[string]any{"meta": meta()}
			},
			func() (handlerstest.APIClient, string, map[string]any) {
				return attacker, "/v0/wallet/self-grant-feature-app-right", map[string]any{"meta": meta()}
			},
			func() (handlerstest.APIClient, string, map[string]any) {
				return admin, "/v0/admin/external-party/setup-proposal", map[string]any{"user_party_id": extVictim}
			},
			func() (handlerstest.APIClient, string, map[string]any) {
				if rng.Intn(2) == 0 {
					return admin, "/v0/admin/devnet/reassignments/" + string(victimPreapproval) + "/complete", map[string]any{}
				}
				return admin, "/v0/admin/devnet/reassignments", map[string]any{"contract_id": victimPreapproval, "target_synchronizer_id": text()}
			},
			func() (handlerstest.APIClient, string, map[string]any) {
				return admin, "/v0/admin/merge-delegations/airdrop", map[string]any{"recipients": []map[string]any{{"party_id": victim, "amount": amount()}},
					"description": text(), "command_id": id()}
			},
		}
		// External sends are prepared and then signed and submitted, so what
		// a preparation let through is also executed.
		externalOps := []func() (string, map[string]any){
			func() (string, map[string]any) {
				return "/v0/admin/external-party/transfer/prepare", map[string]any{"sender_party_id": ext, "receiver_party_id": receiver(),
					"amount": amount(), "description": text()}
			},
			func() (string, map[string]any) {
				return "/v0/admin/external-party/transfer-preapproval/prepare-send", map[string]any{"sender_party_id": ext,
					"receiver_party_id": victim, "amount": jsonNumber(amount()), "expires_at": timeText(), "nonce": 0, "description": text()}
			},
			func() (string, map[string]any) {
				return "/v0/admin/external-party/minting-delegation-proposal/prepare", map[string]any{"beneficiary_party_id": ext,
					"expires_at": timeText(), "merge_limit": []int{1, 0, -1, math.MaxInt32, 100}[rng.Intn(5)]}
			},
		}
		noFiveHundred := func(what string, r handlerstest.APIResponse) {
			t.Helper()
			if r.Status >= 500 {
				t.Errorf("%s = %d %s", what, r.Status, r.Body)
			}
		}
		const n = 200
		for i := range n {
			if i%4 == 3 {
				path, body := externalOps[rng.Intn(len(externalOps))]()
				r := admin.Raw("POST", path, body)
				noFiveHundred(path, r)
				if r.Status == http.StatusOK {
					submitSigned(t, admin, string(ext), extKey, path, r, noFiveHundred)
				}
				continue
			}
			c, path, body := ops[rng.Intn(len(ops))]()
			noFiveHundred(path, c.Raw("POST", path, body))
		}
		// The web forms, which reach the same ledger calls by another way.
		ui := handlerstest.NewUIEnvOn(t, a.L, nil, func(*handlers.Config) {}).Browser(t)
		ui.Login("alice")
		csrf := handlerstest.CSRFOf(t, ui.Get("/send").Body)
		formText := func() string { return strings.ReplaceAll(text(), handlerstest.InvalidUTF8, "\xff\xfe") }
		for range 30 {
			var path string
			var f url.Values
			switch rng.Intn(3) {
			case 0:
				path, f = "/send", url.Values{"receiver": {string(victim)}, "amount": {amount()}, "description": {formText()},
					"expires": {[]string{"1h", "0", "-1d", "999999999d", "x", "30d"}[rng.Intn(6)]},
					"method":  {[]string{"offer", "instruction", "direct"}[rng.Intn(3)]}, "dedup_id": {formText()}}
			case 1:
				path, f = "/tap", url.Values{"amount": {amount()}}
			default:
				path, f = "/traffic", url.Values{"member": {string(a.L.Operator())}, "amount": {amount()},
					"unit": {[]string{"cc", "bytes"}[rng.Intn(2)]}, "step": {"confirm"}, "tracking_id": {formText()}}
			}
			f.Set("csrf_token", csrf)
			if r := ui.Post(path, f); r.Status >= 500 {
				t.Errorf("form %s %v = %d %.300s", path, f, r.Status, r.Body)
			}
		}
		victimReads(t, a, "bob", victim, false)
		victimReads(t, a, "alice", attackerPID, false)
		victimReads(t, a, "", extVictim, true)
		victimReads(t, a, "", ext, true)
		// The expiry job and a restart of time do not trip over what was stored.
		a.Clock.Advance(24 * time.Hour)
		if _, err := expiry.New(a.L).Offers(t.Context()); err != nil {
			t.Errorf("expire offers: %v", err)
		}
		victimReads(t, a, "bob", victim, false)
		ledgertest.Conserved(t, a.L)
	})
}

// jsonNumber makes the prepare-send amount, a JSON number in the spec, out
// of text: as a number when it is one, else as the (wrong) string.
func jsonNumber(s string) any {
	if json.Valid([]byte(s)) && strings.TrimSpace(s) == s {
		return json.RawMessage(s)
	}
	return s
}

// submitSigned signs and submits what a prepare endpoint answered.
func submitSigned(t *testing.T, admin handlerstest.APIClient, party string, key ed25519.PrivateKey, preparePath string, r handlerstest.APIResponse, check func(string, handlerstest.APIResponse)) {
	t.Helper()
	var p prepared
	r.JSON(t, &p)
	submit := "/v0/admin/external-party/submit"
	if strings.HasSuffix(preparePath, "prepare-send") {
		submit = "/v0/admin/external-party/transfer-preapproval/submit-send"
	}
	check(submit, admin.Raw("POST", submit, submissionBody(party, key, p, sign(t, key, p.TxHash))))
}
