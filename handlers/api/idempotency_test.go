package api_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/handlers/handlerstest"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/ccwallet/ccwallet/ledger/traffic"
)

// replay is one request that carries its own idempotency key (a tracking
// id, a deduplication id, a command id, a signed transaction, or the
// contract it acts on), sent many times.
type replay struct {
	c    handlerstest.APIClient
	path string
	body any // nil: no body
	// dup is how a replay is answered once the request took effect: 200
	// with the very same body, or 409 (the specs' "already created").
	dup int
	// effects counts the request's effect in the ledger (0 before, 1 after).
	effects func() int
}

// TestConcurrentReplays sends each idempotent request 12 times at once
// through the full router, then again one by one. Whatever the
// interleaving, the request has exactly one effect; every answer is the
// first answer again (200 with the same body), a duplicate (409, the same
// body every time) or in flight (429); and once nothing is in flight every
// replay, a retried 429 included, gets the settled answer.
func TestConcurrentReplays(t *testing.T) { handlerstest.ForEachAPI(t, testConcurrentReplays) }

func testConcurrentReplays(t *testing.T, a *handlerstest.API) {
	exp := a.Clock.Now().Add(time.Hour)
	admin := a.As("admin")
	holdings := func(p coin.PartyID) func() int {
		return func() int {
			b, err := a.L.Balance(t.Context(), p)
			if err != nil {
				t.Fatal(err)
			}
			return b.Count
		}
	}
	listed := func(c handlerstest.APIClient, path, field string) func() int {
		return func() int {
			r := c.Do(http.MethodGet, path, nil)
			var out map[string][]json.RawMessage
			if r.Status != http.StatusOK {
				t.Fatalf("GET %s = %d %s", path, r.Status, r.Body)
			}
			r.JSON(t, &out)
			return len(out[field])
		}
	}
	preapprove := func(c handlerstest.APIClient) string {
		t.Helper()
		r := c.Do(http.MethodPost, "/v0/wallet/transfer-preapproval", nil)
		var out struct {
			CID string `json:"transfer_preapproval_contract_id"`
		}
		if r.Status != http.StatusOK {
			t.Fatalf("create preapproval = %d %s", r.Status, r.Body)
		}
		r.JSON(t, &out)
		return out.CID
	}

	cases := []struct {
		name  string
		setup func(t *testing.T) replay
	}{
		{"transfer offer, tracking id", func(t *testing.T) replay {
			alice, _ := a.User("offer-alice", "100")
			_, bob := a.User("offer-bob", "")
			return replay{c: alice, path: "/v0/wallet/transfer-offers", dup: 409,
				body:    offerBody(bob, "10", "offer-1", exp),
				effects: listed(alice, "/v0/wallet/transfer-offers", "offers")}
		}},
		{"transfer offer acceptance, contract id", func(t *testing.T) replay {
			alice, _ := a.User("accept-alice", "100")
			bob, bobPID := a.User("accept-bob", "")
			r := alice.Do(http.MethodPost, "/v0/wallet/transfer-offers", offerBody(bobPID, "10", "accept-1", exp))
			var out struct {
				CID string `json:"offer_contract_id"`
			}
			r.JSON(t, &out)
			// Once accepted the offer is no longer open: 404, as the spec says.
			return replay{c: bob, path: "/v0/wallet/transfer-offers/" + out.CID + "/accept", dup: 404, effects: holdings(bobPID)}
		}},
		{"transfer preapproval, one per receiver", func(t *testing.T) replay {
			bob, bobPID := a.User("pre-bob", "")
			return replay{c: bob, path: "/v0/wallet/transfer-preapproval", dup: 409,
				effects: func() int { return listedPreapprovals(t, admin, bobPID) }}
		}},
		{"transfer preapproval send, deduplication id", func(t *testing.T) replay {
			alice, _ := a.User("send-alice", "100")
			bob, bobPID := a.User("send-bob", "")
			preapprove(bob)
			return replay{c: alice, path: "/v0/wallet/transfer-preapproval/send", dup: 409,
				body:    map[string]any{"receiver_party_id": bobPID, "amount": "10", "deduplication_id": "send-1", "description": "tip"},
				effects: holdings(bobPID)}
		}},
		{"token-standard transfer instruction, tracking id", func(t *testing.T) replay {
			alice, _ := a.User("ti-alice", "100")
			_, bob := a.User("ti-bob", "")
			const path = "/api/validator/v0/wallet/token-standard/transfers"
			return replay{c: alice, path: path, dup: 409, body: createTransferBody(bob, "10", exp, "ti-1"),
				effects: listed(alice, path, "transfers")}
		}},
		{"buy traffic, tracking id", func(t *testing.T) replay {
			alice, alicePID := a.User("traffic-alice", "1000")
			return replay{c: alice, path: "/api/validator/v0/wallet/buy-traffic-requests", dup: 409,
				body: map[string]any{"receiving_validator_party_id": alicePID, "domain_id": a.L.SynchronizerID(),
					"traffic_amount": 200_000, "tracking_id": "traffic-1", "expires_at": exp.UnixMicro()},
				effects: func() int {
					s, err := traffic.New(a.L).TrafficStatus(t.Context(), alicePID)
					if err != nil {
						t.Fatal(err)
					}
					return int(s.NumPurchases)
				}}
		}},
		{"tap, command id", func(t *testing.T) replay {
			u, p := a.User("tapper", "")
			return replay{c: u, path: "/v0/wallet/tap", dup: 200, body: map[string]any{"amount": "10", "command_id": "tap-1"}, effects: holdings(p)}
		}},
		{"external preapproval send, signed transaction", func(t *testing.T) replay {
			sender, key := onboardExternalSpec(t, admin, "replay-ext")
			ledgertest.Mint(t, a.L, coin.PartyID(sender), "100")
			bob, bobPID := a.User("ext-bob", "")
			preapprove(bob)
			r := admin.Do(http.MethodPost, "/v0/admin/external-party/transfer-preapproval/prepare-send",
				fmt.Sprintf(`{"sender_party_id":%q,"receiver_party_id":%q,"amount":10,"expires_at":%q,"nonce":0,"description":"rent"}`,
					sender, bobPID, exp.Format(time.RFC3339)))
			want(t, "prepare-send", r, http.StatusOK)
			var p preparedSend
			r.JSON(t, &p)
			return replay{c: admin, path: "/v0/admin/external-party/transfer-preapproval/submit-send", dup: 200,
				body: submissionBody(sender, key, prepared{Transaction: p.Transaction}, sign(t, key, p.TxHash)), effects: holdings(bobPID)}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := tc.setup(t)
			if n := r.effects(); n != 0 {
				t.Fatalf("%d effects before the request", n)
			}
			send := func() handlerstest.APIResponse {
				if r.body == nil {
					return r.c.Do(http.MethodPost, r.path, nil)
				}
				raw, err := json.Marshal(r.body)
				if err != nil {
					t.Error(err)
				}
				return r.c.Do(http.MethodPost, r.path, raw)
			}

			const clients = 12
			answers := make([]handlerstest.APIResponse, clients)
			start := make(chan struct{})
			var wg sync.WaitGroup
			for i := range clients {
				wg.Add(1)
				go func() {
					defer wg.Done()
					<-start
					answers[i] = send()
				}()
			}
			close(start)
			wg.Wait()

			counts := map[int]int{}
			var first, dup *handlerstest.APIResponse
			for i, ans := range answers {
				counts[ans.Status]++
				switch ans.Status {
				case http.StatusOK:
					if first == nil {
						first = &answers[i]
					} else if !bytes.Equal(ans.Body, first.Body) {
						t.Errorf("two 200 answers differ:\n%s\n%s", first.Body, ans.Body)
					}
				case r.dup, http.StatusTooManyRequests:
					if ans.Status != r.dup {
						continue
					}
					if dup == nil {
						dup = &answers[i]
					} else if !bytes.Equal(ans.Body, dup.Body) {
						t.Errorf("two %d answers differ:\n%s\n%s", r.dup, dup.Body, ans.Body)
					}
				default:
					t.Errorf("answer %d %s, want 200, %d or 429", ans.Status, ans.Body, r.dup)
				}
			}
			if first == nil {
				t.Fatalf("no request succeeded: %v", counts)
			}
			if r.dup != http.StatusOK && counts[http.StatusOK] != 1 {
				t.Errorf("%d requests succeeded, want 1 (answers %v)", counts[http.StatusOK], counts)
			}

			// Nothing in flight any more: every replay, one for each 429
			// and three more, gets the settled answer.
			for range counts[http.StatusTooManyRequests] + 3 {
				ans := send()
				switch {
				case ans.Status != r.dup:
					t.Errorf("replay = %d %s, want %d", ans.Status, ans.Body, r.dup)
				case r.dup == http.StatusOK && !bytes.Equal(ans.Body, first.Body):
					t.Errorf("replay answered\n%s\nwant the first answer\n%s", ans.Body, first.Body)
				case r.dup != http.StatusOK && dup != nil && !bytes.Equal(ans.Body, dup.Body):
					t.Errorf("replay answered\n%s\nwant the same as the concurrent duplicates\n%s", ans.Body, dup.Body)
				case dup == nil:
					dup = &ans
				}
			}
			if n := r.effects(); n != 1 {
				t.Errorf("%d effects, want exactly 1 (answers %v)", n, counts)
			}
			t.Logf("answers %v", counts)
		})
	}
	ledgertest.Conserved(t, a.L)
}

// listedPreapprovals counts receiver's preapprovals in the admin list.
func listedPreapprovals(t *testing.T, admin handlerstest.APIClient, receiver coin.PartyID) int {
	t.Helper()
	r := admin.Do(http.MethodGet, "/v0/admin/transfer-preapprovals", nil)
	var out struct {
		Contracts []struct {
			Contract struct {
				Payload struct {
					Receiver coin.PartyID `json:"receiver"`
				} `json:"payload"`
			} `json:"contract"`
		} `json:"contracts"`
	}
	if r.Status != http.StatusOK {
		t.Fatalf("list preapprovals = %d %s", r.Status, r.Body)
	}
	r.JSON(t, &out)
	n := 0
	for _, c := range out.Contracts {
		if c.Contract.Payload.Receiver == receiver {
			n++
		}
	}
	return n
}
