package ledgerapi_test

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/devnet"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/ccwallet/ccwallet/ledgerapi/internal/client"
)

const (
	holdingIface     = "#splice-api-token-holding-v1:Splice.Api.Token.HoldingV1:Holding"
	holdingIfaceByID = "718a0f77e505a8de22f188bd4c87fe74101274e9d4cb1bfac7d09aec7158d35b:Splice.Api.Token.HoldingV1:Holding"
	instructionIface = "#splice-api-token-transfer-instruction-v1:Splice.Api.Token.TransferInstructionV1:TransferInstruction"
)

// holdingView is the token standard's HoldingView.
type holdingView struct {
	Owner        string `json:"owner"`
	InstrumentID struct {
		Admin string `json:"admin"`
		ID    string `json:"id"`
	} `json:"instrumentId"`
	Amount string `json:"amount"`
	Lock   *struct {
		Holders []string `json:"holders"`
	} `json:"lock"`
}

// flatUpdate is one element of /v2/updates/flats.
type flatUpdate struct {
	Update struct {
		Transaction *struct {
			Value struct {
				UpdateID string                       `json:"updateId"`
				Offset   int64                        `json:"offset"`
				Events   []map[string]json.RawMessage `json:"events"`
			} `json:"value"`
		} `json:"Transaction"`
		OffsetCheckpoint *struct {
			Value struct {
				Offset int64 `json:"offset"`
			} `json:"value"`
		} `json:"OffsetCheckpoint"`
	} `json:"update"`
}

func (e *env) flats(user string, req map[string]any, limit int64) []flatUpdate {
	e.t.Helper()
	resp, err := e.as(user).PostV2UpdatesFlatsWithBodyWithResponse(context.Background(), &client.PostV2UpdatesFlatsParams{Limit: &limit}, jsonType, body(e.t, req))
	if err != nil {
		e.t.Fatal(err)
	}
	if resp.StatusCode() != http.StatusOK {
		e.t.Fatalf("flats: %d %s", resp.StatusCode(), resp.Body)
	}
	var out []flatUpdate
	if err := json.Unmarshal(resp.Body, &out); err != nil {
		e.t.Fatal(err)
	}
	return out
}

func acsDelta(f map[string]any) map[string]any {
	return map[string]any{"includeTransactions": map[string]any{"eventFormat": f, "transactionShape": "TRANSACTION_SHAPE_ACS_DELTA"}}
}

// TestReadsAfterTransfer: after alice instructs a transfer to bob, the
// Holding interface filter shows alice her holdings (the change and the
// locked one) with their views, the TransferInstruction filter shows bob
// the instruction; bob accepts and both follow it on /v2/updates/flats
// and /v2/events/events-by-contract-id.
func TestReadsAfterTransfer(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		alice, bob := e.user("alice", "100"), e.user("bob", "")
		start := e.ledgerEnd()
		res, err := e.l.Instructions().Create(ctx, ledger.TransferInstructionRequest{
			Sender: alice, Receiver: bob, Amount: coin.MustParse("40"), ExecuteBefore: e.clock.Now().Add(time.Hour),
		})
		if err != nil || res.InstructionCID == "" {
			t.Fatalf("instruct: %v %+v", err, res)
		}
		afterInstr := e.ledgerEnd()
		// The lock is the 40 and its fee reserve for the hour; the change
		// the rest of the 100.
		change := coin.MustParse("60").Sub(e.l.Rules().TransferLockReserve(coin.MustParse("40"), e.l.Rules().InitialPriceUSD, time.Hour))

		// Alice's holdings through the Holding interface (by package id).
		hs := e.acs("alice", filter(alice, interfaceFilter(holdingIfaceByID, true, false)), afterInstr)
		var total coin.Amount
		locked := 0
		for _, h := range hs {
			if len(h.InterfaceViews) != 1 || h.InterfaceViews[0].InterfaceID != holdingIfaceByID {
				t.Fatalf("holding %s views: %+v", h.ContractID, h.InterfaceViews)
			}
			var v holdingView
			if err := json.Unmarshal(h.InterfaceViews[0].ViewValue, &v); err != nil {
				t.Fatal(err)
			}
			if v.Owner != string(alice) || v.InstrumentID.ID != "Amulet" || v.InstrumentID.Admin != string(e.l.DSO()) {
				t.Errorf("holding view %+v", v)
			}
			if v.Lock != nil {
				locked++
			}
			if h.CreateArgument != nil || h.CreatedEventBlob != "" {
				t.Errorf("interface filter without blob gave argument %s / blob %q", h.CreateArgument, h.CreatedEventBlob)
			}
			if !slices.Equal(h.WitnessParties, []string{string(alice)}) || h.PackageName != "splice-amulet" {
				t.Errorf("holding %s: witnesses %v package %s", h.ContractID, h.WitnessParties, h.PackageName)
			}
			total = total.Add(coin.MustParse(v.Amount))
		}
		if len(hs) != 2 || locked != 1 || !total.Equal(coin.MustParse("100")) {
			t.Errorf("alice's holdings: %d, %d locked, total %s; want the change and the 40 locked, 100 in all", len(hs), locked, total)
		}

		// Bob finds the instruction through its interface.
		is := e.acs("bob", filter(bob, interfaceFilter(instructionIface, true, true)), afterInstr)
		if len(is) != 1 || is[0].ContractID != string(res.InstructionCID) {
			t.Fatalf("bob's instructions: %+v", is)
		}
		var iv struct {
			Transfer struct {
				Sender, Receiver, Amount string
			} `json:"transfer"`
			Status struct{ Tag string } `json:"status"`
		}
		if err := json.Unmarshal(is[0].InterfaceViews[0].ViewValue, &iv); err != nil {
			t.Fatal(err)
		}
		if iv.Transfer.Sender != string(alice) || iv.Transfer.Receiver != string(bob) || !coin.MustParse(iv.Transfer.Amount).Equal(coin.MustParse("40")) ||
			iv.Status.Tag != "TransferPendingReceiverAcceptance" {
			t.Errorf("instruction view %+v", iv)
		}
		if is[0].CreatedEventBlob == "" || !slices.Equal(is[0].Observers, []string{string(bob)}) {
			t.Errorf("instruction: blob %q observers %v", is[0].CreatedEventBlob, is[0].Observers)
		}
		if _, _, err := e.l.VerifyBlob(is[0].CreatedEventBlob); err != nil {
			t.Errorf("the blob is not the ledger's: %v", err)
		}

		// A template filter gives the create argument; bob sees none of
		// alice's coin.
		ams := e.acs("alice", filter(alice, templateFilter("#splice-amulet:Splice.Amulet:Amulet", false)), afterInstr)
		if len(ams) != 1 || ams[0].CreateArgument == nil || templateSuffix(ams[0].TemplateID) != "Splice.Amulet:Amulet" {
			t.Fatalf("alice's Amulets: %+v", ams)
		}
		var arg struct {
			Owner  string `json:"owner"`
			Amount struct {
				InitialAmount string `json:"initialAmount"`
			} `json:"amount"`
		}
		if err := json.Unmarshal(ams[0].CreateArgument, &arg); err != nil || arg.Owner != string(alice) || arg.Amount.InitialAmount != change.String() {
			t.Errorf("Amulet argument %s (%v)", ams[0].CreateArgument, err)
		}
		if got := e.acs("bob", filter(bob, interfaceFilter(holdingIface, true, false)), afterInstr); len(got) != 0 {
			t.Errorf("bob holds %d before accepting", len(got))
		}
		// As of before the transfer, alice had one 100 holding.
		if got := e.acs("alice", filter(alice, templateFilter("#splice-amulet:Splice.Amulet:Amulet", false)), start); len(got) != 1 || got[0].Offset > start {
			t.Errorf("alice's contracts at offset %d: %+v", start, got)
		}

		// Bob accepts; both follow it on the updates.
		if _, err := e.l.Instructions().Accept(ctx, bob, res.InstructionCID); err != nil {
			t.Fatal(err)
		}
		ups := e.flats("bob", map[string]any{"beginExclusive": afterInstr, "verbose": false,
			"updateFormat": acsDelta(filter(bob, interfaceFilter(holdingIface, true, false), interfaceFilter(instructionIface, true, false)))}, 100)
		var created, archived []string
		for _, u := range ups {
			if u.Update.Transaction == nil {
				continue
			}
			for _, ev := range u.Update.Transaction.Value.Events {
				var c createdEvent
				if raw, ok := ev["CreatedEvent"]; ok {
					json.Unmarshal(raw, &c)
					created = append(created, templateSuffix(c.TemplateID))
				}
				if raw, ok := ev["ArchivedEvent"]; ok {
					json.Unmarshal(raw, &c)
					archived = append(archived, c.ContractID)
				}
			}
		}
		if !slices.Equal(archived, []string{string(res.InstructionCID)}) || !slices.Equal(created, []string{"Splice.Amulet:Amulet"}) {
			t.Errorf("bob's updates after the instruction: archived %v, created %v", archived, created)
		}
		if got := e.acs("bob", filter(bob, interfaceFilter(holdingIface, true, false)), e.ledgerEnd()); len(got) != 1 {
			t.Errorf("bob holds %d after accepting, want 1", len(got))
		}

		// Events of the instruction: created and archived.
		ev, err := e.as("alice").PostV2EventsEventsByContractIdWithBodyWithResponse(ctx, jsonType, body(t, map[string]any{
			"contractId": res.InstructionCID, "eventFormat": filter(alice, interfaceFilter(instructionIface, true, false))}))
		if err != nil || ev.JSON200 == nil || ev.JSON200.Created == nil || ev.JSON200.Archived == nil {
			t.Fatalf("events of the instruction: %v %s", err, ev.Body)
		}
		if ev.JSON200.Created.CreatedEvent.Offset != afterInstr || ev.JSON200.Archived.ArchivedEvent.Offset <= afterInstr {
			t.Errorf("instruction created at %d, archived at %d; instructed at %d", ev.JSON200.Created.CreatedEvent.Offset, ev.JSON200.Archived.ArchivedEvent.Offset, afterInstr)
		}

		// The transaction by id and by offset.
		var instrUpdate string
		for _, u := range e.flats("alice", map[string]any{"beginExclusive": start, "endInclusive": afterInstr, "verbose": false, "filter": filter(alice)}, 10) {
			if u.Update.Transaction != nil && u.Update.Transaction.Value.Offset == afterInstr {
				instrUpdate = u.Update.Transaction.Value.UpdateID
			}
		}
		byID, err := e.as("alice").PostV2UpdatesTransactionByIdWithBodyWithResponse(ctx, jsonType, body(t, map[string]any{
			"updateId": instrUpdate, "requestingParties": []string{string(alice)}}))
		if err != nil || byID.JSON200 == nil || byID.JSON200.Transaction.Offset != afterInstr {
			t.Errorf("transaction %q by id: %v %s", instrUpdate, err, byID.Body)
		}
		byOff, err := e.as("bob").PostV2UpdatesTransactionByOffsetWithBodyWithResponse(ctx, jsonType, body(t, map[string]any{
			"offset": afterInstr, "requestingParties": []string{string(bob)}}))
		if err != nil || byOff.JSON200 == nil || byOff.JSON200.Transaction.UpdateId != instrUpdate || byOff.JSON200.Transaction.Events == nil || len(*byOff.JSON200.Transaction.Events) != 1 {
			t.Errorf("transaction at %d by offset for bob (the instruction only): %v %s", afterInstr, err, byOff.Body)
		}
		for name, req := range map[string]map[string]any{
			"update-by-id":     {"updateId": instrUpdate, "updateFormat": acsDelta(filter(bob, interfaceFilter(instructionIface, true, false)))},
			"update-by-offset": {"offset": afterInstr, "updateFormat": acsDelta(filter(bob, interfaceFilter(instructionIface, true, false)))},
		} {
			var raw []byte
			if name == "update-by-id" {
				r, err := e.as("bob").PostV2UpdatesUpdateByIdWithBodyWithResponse(ctx, jsonType, body(t, req))
				if err != nil {
					t.Fatal(err)
				}
				raw = r.Body
			} else {
				r, err := e.as("bob").PostV2UpdatesUpdateByOffsetWithBodyWithResponse(ctx, jsonType, body(t, req))
				if err != nil {
					t.Fatal(err)
				}
				raw = r.Body
			}
			var u flatUpdate
			if err := json.Unmarshal(raw, &u); err != nil || u.Update.Transaction == nil || u.Update.Transaction.Value.UpdateID != instrUpdate ||
				len(u.Update.Transaction.Value.Events) != 1 {
				t.Errorf("%s: %v %s", name, err, raw)
			}
		}
	})
}

// TestReadErrors: Canton's errors, in its shape, for reads a caller may
// not or cannot make.
func TestReadErrors(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		alice, bob := e.user("alice", "10"), e.user("bob", "10")
		al := e.as("alice")
		end := e.ledgerEnd()
		acs := func(what string, req map[string]any, status int, code string) {
			t.Helper()
			r, err := al.PostV2StateActiveContractsWithBodyWithResponse(ctx, nil, jsonType, body(t, req))
			if err != nil {
				t.Fatal(err)
			}
			wantError(t, what, status, r.HTTPResponse, r.JSONDefault, code)
		}
		acs("bob's contracts", map[string]any{"eventFormat": filter(bob), "verbose": false, "activeAtOffset": end}, http.StatusForbidden, "PERMISSION_DENIED")
		acs("any party", map[string]any{"eventFormat": map[string]any{"filtersByParty": map[string]any{}, "filtersForAnyParty": map[string]any{}, "verbose": false},
			"verbose": false, "activeAtOffset": end}, http.StatusForbidden, "PERMISSION_DENIED")
		acs("past the end", map[string]any{"eventFormat": filter(alice), "verbose": false, "activeAtOffset": end + 1}, http.StatusBadRequest, "OFFSET_AFTER_LEDGER_END")
		acs("bad template id", map[string]any{"eventFormat": filter(alice, templateFilter("Amulet", false)), "verbose": false, "activeAtOffset": end},
			http.StatusBadRequest, "INVALID_ARGUMENT")
		acs("unknown template", map[string]any{"eventFormat": filter(alice, templateFilter("#splice-amulet:Splice.Amulet:Nope", false)), "verbose": false, "activeAtOffset": end},
			http.StatusNotFound, "TEMPLATES_OR_INTERFACES_NOT_FOUND")
		acs("unknown package", map[string]any{"eventFormat": filter(alice, templateFilter("#no-such-package:A:B", false)), "verbose": false, "activeAtOffset": end},
			http.StatusNotFound, "PACKAGE_NAMES_NOT_FOUND")
		acs("both formats", map[string]any{"eventFormat": filter(alice), "filter": filter(alice), "verbose": false, "activeAtOffset": end},
			http.StatusBadRequest, "INVALID_ARGUMENT")

		// Another party's contract, and one that does not exist: 404.
		bobs := e.acs("bob", filter(bob), end)
		for what, cid := range map[string]string{"bob's contract": bobs[0].ContractID, "no contract": string(coin.NewContractID())} {
			r, err := al.PostV2EventsEventsByContractIdWithBodyWithResponse(ctx, jsonType, body(t, map[string]any{
				"contractId": cid, "requestingParties": []string{string(alice)}}))
			if err != nil {
				t.Fatal(err)
			}
			wantError(t, what, http.StatusNotFound, r.HTTPResponse, r.JSONDefault, "CONTRACT_EVENTS_NOT_FOUND")
		}
		r, _ := al.PostV2UpdatesTransactionByIdWithBodyWithResponse(ctx, jsonType, body(t, map[string]any{"updateId": "nope", "requestingParties": []string{string(alice)}}))
		wantError(t, "unknown update", http.StatusNotFound, r.HTTPResponse, r.JSONDefault, "UPDATE_NOT_FOUND")

		// A body that does not decode: 400 text/plain, as Canton.
		bad, err := al.PostV2StateActiveContractsWithBodyWithResponse(ctx, nil, jsonType, body(t, map[string]any{"activeAtOffset": "soon"}))
		if err != nil || bad.StatusCode() != http.StatusBadRequest || bad.HTTPResponse.Header.Get("Content-Type") != "text/plain; charset=utf-8" {
			t.Errorf("undecodable body: %v %d %s", err, bad.StatusCode(), bad.Body)
		}
		// What is not served says what is.
		un, err := al.PostV2CommandsAsyncSubmitWithBodyWithResponse(ctx, jsonType, body(t, map[string]any{"commandId": "x", "commands": []any{}, "actAs": []string{string(alice)}}))
		if err != nil {
			t.Fatal(err)
		}
		wantError(t, "async submit", http.StatusNotImplemented, un.HTTPResponse, un.JSONDefault, "UNSUPPORTED_OPERATION")
	})
}

// TestUpdatesPaging: an app follows its transactions from an offset,
// page by page, seeing each once, with checkpoints past what it does not
// see; reads below the pruned offset are refused.
func TestUpdatesPaging(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		alice, bob := e.user("alice", ""), e.user("bob", "")
		var want []int64
		for i := range 7 {
			ledgertest.Mint(t, e.l, alice, "1")
			want = append(want, e.ledgerEnd())
			if i%2 == 0 {
				ledgertest.Mint(t, e.l, bob, "1") // not alice's
			}
		}
		end := e.ledgerEnd()
		var got []int64
		from := int64(0)
		for pages := 0; from < end; pages++ {
			if pages > 20 {
				t.Fatalf("no progress after %d pages: at %d of %d", pages, from, end)
			}
			ups := e.flats("alice", map[string]any{"beginExclusive": from, "verbose": false, "filter": filter(alice)}, 2)
			if len(ups) == 0 || len(ups) > 2 {
				t.Fatalf("page after %d: %d elements", from, len(ups))
			}
			for _, u := range ups {
				switch {
				case u.Update.Transaction != nil:
					o := u.Update.Transaction.Value.Offset
					if o <= from {
						t.Fatalf("update at %d on the page after %d", o, from)
					}
					got, from = append(got, o), o
				case u.Update.OffsetCheckpoint != nil:
					if o := u.Update.OffsetCheckpoint.Value.Offset; o < from {
						t.Fatalf("checkpoint %d behind %d", o, from)
					} else {
						from = o
					}
				}
			}
		}
		// Onboarding made alice's first contracts (wallet install...).
		if len(got) < len(want) || !slices.Equal(got[len(got)-len(want):], want) {
			t.Errorf("alice's updates %v, want them to end with her mints %v", got, want)
		}

		// Pruning: reads below the pruned offset are refused.
		if _, err := devnet.New(e.l).AdvanceRounds(ctx, 4); err != nil { // only closed rounds' updates are pruned
			t.Fatal(err)
		}
		e.clock.Advance(48 * time.Hour)
		ledgertest.Mint(t, e.l, alice, "1")
		if _, err := e.w.Pruning.Prune(ctx, 24*time.Hour, 0); err != nil {
			t.Fatal(err)
		}
		po, err := e.as("alice").GetV2StateLatestPrunedOffsetsWithResponse(ctx)
		if err != nil || po.JSON200 == nil || po.JSON200.ParticipantPrunedUpToInclusive <= 0 {
			t.Fatalf("pruned offsets: %v %s", err, po.Body)
		}
		r, err := e.as("alice").PostV2UpdatesFlatsWithBodyWithResponse(ctx, nil, jsonType, body(t, map[string]any{"beginExclusive": 0, "verbose": false, "filter": filter(alice)}))
		if err != nil {
			t.Fatal(err)
		}
		wantError(t, "updates from 0 after pruning", http.StatusBadRequest, r.HTTPResponse, r.JSONDefault, "PARTICIPANT_PRUNED_DATA_ACCESSED")
		// Completions too: below the pruned offset refused, past the end
		// refused, at and after the pruned offset read (the read skips
		// the end's second read below the end).
		for _, c := range []struct {
			begin      int64
			status     int
			code, what string
		}{
			{po.JSON200.ParticipantPrunedUpToInclusive - 1, http.StatusBadRequest, "PARTICIPANT_PRUNED_DATA_ACCESSED", "below the pruned offset"},
			{e.ledgerEnd() + 100, http.StatusBadRequest, "OFFSET_AFTER_LEDGER_END", "after the end"},
			{po.JSON200.ParticipantPrunedUpToInclusive, http.StatusOK, "", "at the pruned offset"},
			{e.ledgerEnd(), http.StatusOK, "", "at the end"},
		} {
			status, b := e.completionsRaw("alice", map[string]any{"userId": "alice", "parties": []coin.PartyID{alice}, "beginExclusive": c.begin}, 0)
			if status != c.status || !strings.Contains(string(b), c.code) {
				t.Errorf("completions from %d (%s) = %d %.300s, want %d %s", c.begin, c.what, status, b, c.status, c.code)
			}
		}
		ups := e.flats("alice", map[string]any{"beginExclusive": po.JSON200.ParticipantPrunedUpToInclusive, "verbose": false, "filter": filter(alice)}, 10)
		if len(ups) == 0 || ups[0].Update.Transaction == nil {
			t.Errorf("updates after the pruned offset: %+v", ups)
		}
		// The holdings live through pruning.
		pruned := po.JSON200.ParticipantPrunedUpToInclusive
		hs := e.acs("alice", filter(alice, interfaceFilter(holdingIface, false, false)), e.ledgerEnd())
		if len(hs) != 8 {
			t.Errorf("alice has %d holdings after pruning, want 8", len(hs))
		}
		// Spending holdings created before the pruned offset shows their
		// archives (their creating update is gone).
		if _, err := e.l.Instructions().Create(ctx, ledger.TransferInstructionRequest{
			Sender: alice, Receiver: bob, Amount: coin.MustParse("7.5"), ExecuteBefore: e.clock.Now().Add(time.Hour),
		}); err != nil {
			t.Fatal(err)
		}
		archived := 0
		for _, u := range e.flats("alice", map[string]any{"beginExclusive": pruned, "verbose": false,
			"updateFormat": acsDelta(filter(alice, interfaceFilter(holdingIface, false, false)))}, 10) {
			if u.Update.Transaction == nil {
				continue
			}
			for _, ev := range u.Update.Transaction.Value.Events {
				if _, ok := ev["ArchivedEvent"]; ok {
					archived++
				}
			}
		}
		if archived < 7 {
			t.Errorf("%d archives of alice's holdings after the pruned offset %d, want at least the 7 spent", archived, pruned)
		}
		for _, h := range e.acs("alice", filter(alice, interfaceFilter(holdingIface, false, false)), e.ledgerEnd()-1) {
			if h.Offset <= pruned && h.CreatedAt == "0001-01-01T00:00:00Z" {
				t.Errorf("holding %s created at offset %d has no creation time", h.ContractID, h.Offset)
			}
		}
	})
}
