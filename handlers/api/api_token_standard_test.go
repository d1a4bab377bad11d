package api_test

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/handlers/handlerstest"
)

type tiResult struct {
	Output struct {
		TransferInstructionCID string   `json:"transfer_instruction_cid"`
		ReceiverHoldingCIDs    []string `json:"receiver_holding_cids"`
	} `json:"output"`
	SenderChangeCIDs []string          `json:"sender_change_cids"`
	Meta             map[string]string `json:"meta"`
}

func createTransferBody(receiver coin.PartyID, amount string, expires time.Time, tracking string) map[string]any {
	return map[string]any{
		"receiver_party_id": receiver, "amount": amount, "description": "lunch",
		"expires_at": expires.UnixMicro(), "tracking_id": tracking,
	}
}

// TestTokenStandardTransfersAPI covers every status of the token-standard
// transfer endpoints, through the full router, against the spec.
func TestTokenStandardTransfersAPI(t *testing.T) {
	handlerstest.ForEachAPI(t, testTokenStandardTransfersAPI)
}

func testTokenStandardTransfersAPI(t *testing.T, a *handlerstest.API) {
	alice, alicePID := a.User("alice", "100")
	bob, bobPID := a.User("bob", "")
	carol, _ := a.User("carol", "")
	stranger := a.As("not-onboarded")
	const path = "/api/validator/v0/wallet/token-standard/transfers"
	exp := a.Clock.Now().Add(time.Hour)

	create := func(c handlerstest.APIClient, body any, want int) tiResult {
		t.Helper()
		r := c.Do(http.MethodPost, path, body)
		if r.Status != want {
			t.Fatalf("create = %d %s, want %d", r.Status, r.Body, want)
		}
		var res tiResult
		if want == http.StatusOK {
			r.JSON(t, &res)
		}
		return res
	}
	first := create(alice, createTransferBody(bobPID, "10", exp, "t1"), http.StatusOK)
	if first.Output.TransferInstructionCID == "" || len(first.SenderChangeCIDs) != 1 {
		t.Fatalf("create result = %+v", first)
	}

	t.Run("create errors", func(t *testing.T) {
		cases := []struct {
			name   string
			client handlerstest.APIClient
			body   any
			want   int
		}{
			{"reused tracking id", alice, createTransferBody(bobPID, "10", exp, "t1"), http.StatusConflict},
			{"missing field", alice, map[string]any{"receiver_party_id": bobPID, "amount": "1"}, http.StatusBadRequest},
			{"malformed JSON", alice, "{", http.StatusBadRequest},
			{"bad amount", alice, createTransferBody(bobPID, "1.00000000001", exp, "t2"), http.StatusBadRequest},
			{"negative amount", alice, createTransferBody(bobPID, "-1", exp, "t2"), http.StatusBadRequest},
			{"expired", alice, createTransferBody(bobPID, "1", a.Clock.Now().Add(-time.Second), "t2"), http.StatusBadRequest},
			{"to self", alice, createTransferBody(alicePID, "1", exp, "t2"), http.StatusBadRequest},
			{"bad receiver", alice, createTransferBody("nope", "1", exp, "t2"), http.StatusBadRequest},
			{"insufficient funds", alice, createTransferBody(bobPID, "1000", exp, "t2"), http.StatusBadRequest},
			{"unknown receiver", alice, createTransferBody(coin.PartyID("ghost::"+alicePID.Namespace()), "1", exp, "t2"), http.StatusNotFound},
			{"no wallet", stranger, createTransferBody(bobPID, "1", exp, "t2"), http.StatusNotFound},
			{"no token", a.As(""), createTransferBody(bobPID, "1", exp, "t2"), http.StatusUnauthorized},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				r := c.client.Do(http.MethodPost, path, c.body)
				if r.Status != c.want {
					t.Errorf("= %d %s, want %d", r.Status, r.Body, c.want)
				}
			})
		}
	})

	t.Run("concurrent tracking id", func(t *testing.T) {
		var wg sync.WaitGroup
		var mu sync.Mutex
		got := map[int]int{}
		for range 10 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r := alice.Do(http.MethodPost, path, createTransferBody(bobPID, "1", exp, "conc"))
				mu.Lock()
				got[r.Status]++
				mu.Unlock()
			}()
		}
		wg.Wait()
		if got[http.StatusOK] != 1 || got[http.StatusOK]+got[http.StatusConflict]+got[http.StatusTooManyRequests] != 10 {
			t.Errorf("statuses = %v; want one 200, the rest 409 or 429", got)
		}
	})

	t.Run("list", func(t *testing.T) {
		for _, c := range []struct {
			name   string
			client handlerstest.APIClient
			want   int
			status int
		}{{"sender", alice, 2, 200}, {"receiver", bob, 2, 200}, {"other", carol, 0, 200}, {"no wallet", stranger, 0, 404}} {
			r := c.client.Do(http.MethodGet, path, nil)
			var l struct {
				Transfers []struct {
					ContractID string `json:"contract_id"`
					TemplateID string `json:"template_id"`
				} `json:"transfers"`
			}
			if r.Status != c.status {
				t.Errorf("%s: list = %d %s", c.name, r.Status, r.Body)
				continue
			}
			if r.Status == 200 {
				r.JSON(t, &l)
				if len(l.Transfers) != c.want {
					t.Errorf("%s: %d transfers, want %d", c.name, len(l.Transfers), c.want)
				}
			}
		}
	})

	move := func(c handlerstest.APIClient, cid, m string, want int) tiResult {
		t.Helper()
		r := c.Do(http.MethodPost, path+"/"+cid+"/"+m, nil)
		if r.Status != want {
			t.Fatalf("%s %s = %d %s, want %d", m, cid, r.Status, r.Body, want)
		}
		var res tiResult
		if want == http.StatusOK {
			r.JSON(t, &res)
		}
		return res
	}
	cid := first.Output.TransferInstructionCID
	t.Run("move errors", func(t *testing.T) {
		move(alice, cid, "accept", http.StatusForbidden)
		move(bob, cid, "withdraw", http.StatusForbidden)
		move(alice, cid, "reject", http.StatusForbidden)
		move(carol, cid, "accept", http.StatusNotFound)
		move(stranger, cid, "accept", http.StatusNotFound)
		move(bob, string(coin.NewContractID()), "accept", http.StatusNotFound)
		move(bob, "not-a-cid", "reject", http.StatusNotFound)
	})
	t.Run("accept", func(t *testing.T) {
		res := move(bob, cid, "accept", http.StatusOK)
		if len(res.Output.ReceiverHoldingCIDs) != 1 {
			t.Errorf("accept result = %+v", res)
		}
		move(bob, cid, "accept", http.StatusNotFound)
		move(alice, cid, "withdraw", http.StatusNotFound)
	})
	t.Run("reject", func(t *testing.T) {
		c := create(alice, createTransferBody(bobPID, "5", exp, "r1"), http.StatusOK).Output.TransferInstructionCID
		res := move(bob, c, "reject", http.StatusOK)
		if len(res.SenderChangeCIDs) != 1 || res.Output.TransferInstructionCID != "" || res.Output.ReceiverHoldingCIDs != nil {
			t.Errorf("reject result = %s", fmt.Sprint(res))
		}
		move(bob, c, "reject", http.StatusNotFound)
	})
	t.Run("withdraw", func(t *testing.T) {
		c := create(alice, createTransferBody(bobPID, "5", exp, "w1"), http.StatusOK).Output.TransferInstructionCID
		res := move(alice, c, "withdraw", http.StatusOK)
		if len(res.SenderChangeCIDs) != 1 {
			t.Errorf("withdraw result = %+v", res)
		}
	})
	t.Run("accept after expiry", func(t *testing.T) {
		c := create(alice, createTransferBody(bobPID, "5", a.Clock.Now().Add(time.Minute), "e1"), http.StatusOK).Output.TransferInstructionCID
		a.Clock.Advance(2 * time.Minute)
		move(bob, c, "accept", http.StatusNotFound)
		move(alice, c, "withdraw", http.StatusOK)
	})
}

// TestInstructionPastDeadlineIs404: accepting an instruction after its
// deadline answers 404 like one already finished, the only error the spec
// declares for accept (it answered 409); reject and withdraw still work.
func TestInstructionPastDeadlineIs404(t *testing.T) {
	handlerstest.ForEachAPI(t, func(t *testing.T, a *handlerstest.API) {
		alice, _ := a.User("alice", "100")
		bob, bobPID := a.User("bob", "")
		var created tiResult
		alice.Do(http.MethodPost, "/v0/wallet/token-standard/transfers", createTransferBody(bobPID, "10", a.Clock.Now().Add(time.Minute), "late")).JSON(t, &created)
		cid := created.Output.TransferInstructionCID
		a.Clock.Advance(2 * time.Minute)
		if r := bob.Do(http.MethodPost, "/v0/wallet/token-standard/transfers/"+cid+"/accept", nil); r.Status != http.StatusNotFound || !strings.Contains(r.Error(), "accepted before") {
			t.Errorf("accept after the deadline = %d %s, want 404 naming the deadline", r.Status, r.Body)
		}
		if r := bob.Do(http.MethodPost, "/v0/wallet/token-standard/transfers/"+cid+"/reject", nil); r.Status != http.StatusOK {
			t.Errorf("reject after the deadline = %d %s, want 200", r.Status, r.Body)
		}
	})
}

// TestTokenStandardTransferDirect: the wallet's token-standard transfer to
// a receiver with a preapproval completes in one step (receiver holdings,
// no instruction), as the transfer factory's "direct" says (issue 22.3).
func TestTokenStandardTransferDirect(t *testing.T) {
	handlerstest.ForEachAPI(t, func(t *testing.T, a *handlerstest.API) {
		alice, alicePID := a.User("alice", "100")
		carol, carolPID := a.User("carol", "")
		if _, _, err := a.L.Preapprovals().Create(t.Context(), carolPID); err != nil {
			t.Fatal(err)
		}
		dso := string(a.L.DSO())
		var f struct {
			TransferKind string `json:"transferKind"`
		}
		a.As("").Do(http.MethodPost, "/registry/transfer-instruction/v1/transfer-factory", map[string]any{"choiceArguments": map[string]any{
			"expectedAdmin": dso, "transfer": map[string]any{"sender": alicePID, "receiver": carolPID, "amount": "10",
				"instrumentId": map[string]any{"admin": dso, "id": "Amulet"}},
		}}).JSON(t, &f)
		if f.TransferKind != "direct" {
			t.Fatalf("factory kind = %q, want direct", f.TransferKind)
		}
		r := alice.Do(http.MethodPost, "/v0/wallet/token-standard/transfers", createTransferBody(carolPID, "10", a.Clock.Now().Add(time.Hour), "direct-1"))
		var res tiResult
		r.JSON(t, &res)
		if r.Status != http.StatusOK || res.Output.TransferInstructionCID != "" || len(res.Output.ReceiverHoldingCIDs) != 1 {
			t.Fatalf("transfer = %d %s; want completed with one receiver holding", r.Status, r.Body)
		}
		var bal struct {
			Unlocked string `json:"effective_unlocked_qty"`
		}
		carol.Do(http.MethodGet, "/v0/wallet/balance", nil).JSON(t, &bal)
		if bal.Unlocked != "10.0000000000" {
			t.Errorf("carol's balance = %s, want 10", bal.Unlocked)
		}
		var list struct {
			Transfers []any `json:"transfers"`
		}
		alice.Do(http.MethodGet, "/v0/wallet/token-standard/transfers", nil).JSON(t, &list)
		if len(list.Transfers) != 0 {
			t.Errorf("pending transfers = %d, want none", len(list.Transfers))
		}
	})
}
