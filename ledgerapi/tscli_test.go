package ledgerapi_test

// The Splice token-standard CLI (token-standard/cli in
// hyperledger-labs/splice, 0.4.x) is not published, so it cannot run
// here. tscli below calls ccwallet the way the CLI's commands do
// (transfer, accept-transfer-instruction, list-holding-txs): the same
// endpoints, request bodies and response fields, read with the same
// checks; and holdingTxs reads the updates the way the CLI's
// transaction parser and its --strict check do, failing where the CLI
// would throw. Written from the CLI's public source; no code copied.

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/handlers"
	"github.com/ccwallet/ccwallet/ledger/devnet"
	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/ccwallet/ccwallet/web"
)

const (
	cliTxKindKey = "splice.lfdecentralizedtrust.org/tx-kind"
	cliSenderKey = "splice.lfdecentralizedtrust.org/sender"
	cliBurnedKey = "splice.lfdecentralizedtrust.org/burned"
)

// tscli is the token-standard CLI pointed at a ccwallet: its ledger URL
// the Ledger API, its registry URL the app port.
type tscli struct {
	t        *testing.T
	e        *env
	registry string
}

func newTSCLI(t *testing.T, e *env) *tscli {
	srv := httptest.NewServer(handlers.New(e.l, handlers.Config{}, nil).Routes(nil))
	t.Cleanup(srv.Close)
	return &tscli{t: t, e: e, registry: srv.URL}
}

// call sends a JSON request as user (a Bearer token, as the CLI's
// clients do), checked against the spec, and wants a 2xx answer.
func (c *tscli) call(user, method, path string, req any) []byte {
	c.t.Helper()
	code, b := c.try(user, method, path, req)
	if code/100 != 2 {
		c.t.Fatalf("%s %s: %d %s", method, path, code, b)
	}
	return b
}

func (c *tscli) try(user, method, path string, req any) (int, []byte) {
	c.t.Helper()
	var rd io.Reader
	if req != nil {
		b, err := json.Marshal(req)
		if err != nil {
			c.t.Fatal(err)
		}
		rd = bytes.NewReader(b)
	}
	base, tr := c.e.url, http.RoundTripper(validating{c.t, http.DefaultTransport})
	if strings.HasPrefix(path, "/registry/") {
		base, tr = c.registry, http.DefaultTransport
	}
	r, err := http.NewRequest(method, base+path, rd)
	if err != nil {
		c.t.Fatal(err)
	}
	r.Header.Set("Content-Type", jsonType)
	if user != "" {
		tok, err := web.SignDevToken(c.e.signer, testKID, "", testAudience, user, time.Hour)
		if err != nil {
			c.t.Fatal(err)
		}
		r.Header.Set("Authorization", "Bearer "+tok)
	}
	resp, err := tr.RoundTrip(r)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

// decode unmarshals b into a generic value (numbers as float64, as
// JavaScript reads them).
func (c *tscli) decode(b []byte) any {
	c.t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		c.t.Fatalf("not JSON: %v: %s", err, b)
	}
	return v
}

// get walks path in v, failing unless every step exists.
func (c *tscli) get(v any, path ...string) any {
	c.t.Helper()
	cur := v
	for i, p := range path {
		m, ok := cur.(map[string]any)
		if !ok {
			c.t.Fatalf("%s: not an object: %v", strings.Join(path[:i], "."), cur)
		}
		if cur, ok = m[p]; !ok {
			c.t.Fatalf("%s: missing in %v", strings.Join(path[:i+1], "."), m)
		}
	}
	return cur
}

// opt walks path in v; nil where a step is missing or null (JavaScript's ?.).
func opt(v any, path ...string) any {
	for _, p := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[p]
	}
	return v
}

func (c *tscli) str(v any, path ...string) string {
	c.t.Helper()
	s, ok := c.get(v, path...).(string)
	if !ok {
		c.t.Fatalf("%s: not a string in %v", strings.Join(path, "."), v)
	}
	return s
}

func (c *tscli) num(v any, path ...string) int64 {
	c.t.Helper()
	f, ok := c.get(v, path...).(float64)
	if !ok || f != float64(int64(f)) {
		c.t.Fatalf("%s: not a whole number in %v", strings.Join(path, "."), v)
	}
	return int64(f)
}

func (c *tscli) list(v any, path ...string) []any {
	c.t.Helper()
	l, ok := c.get(v, path...).([]any)
	if !ok {
		c.t.Fatalf("%s: not an array in %v", strings.Join(path, "."), v)
	}
	return l
}

func (c *tscli) obj(v any, path ...string) map[string]any {
	c.t.Helper()
	m, ok := c.get(v, path...).(map[string]any)
	if !ok {
		c.t.Fatalf("%s: not an object in %v", strings.Join(path, "."), v)
	}
	return m
}

func uuid(t *testing.T) string {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	h := hex.EncodeToString(b)
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

// cliFilters is the CLI's filtersByParty: an interface filter (view and
// blob) per interface, and a wildcard (blob) when asked.
func cliFilters(party coin.PartyID, ifaces []string, wildcard bool) map[string]any {
	cum := []any{}
	for _, id := range ifaces {
		cum = append(cum, map[string]any{"identifierFilter": map[string]any{"InterfaceFilter": map[string]any{"value": map[string]any{
			"interfaceId": id, "includeInterfaceView": true, "includeCreatedEventBlob": true}}}})
	}
	if wildcard {
		cum = append(cum, map[string]any{"identifierFilter": map[string]any{"WildcardFilter": map[string]any{"value": map[string]any{"includeCreatedEventBlob": true}}}})
	}
	return map[string]any{string(party): map[string]any{"cumulative": cum}}
}

// ledgerEnd is GET /v2/state/ledger-end's offset.
func (c *tscli) ledgerEnd(user string) int64 {
	c.t.Helper()
	return c.num(c.decode(c.call(user, http.MethodGet, "/v2/state/ledger-end", nil)), "offset")
}

// cliCompletion is what the CLI prints after a submission.
type cliCompletion struct {
	UpdateID, SynchronizerID, RecordTime string
}

// transfer is the CLI's transfer command: sender's holdings through the
// Holding interface (the deprecated `filter` field), the registry's
// transfer factory for the transfer (lock null), TransferFactory_Transfer
// by interface with the registry's context, submitted by submit.
//
// With discloseHoldings it also discloses the sender's holdings (their
// blob, template and synchronizer from the active contracts) before the
// registry's, as the CLI's earlier transfer did.
func (c *tscli) transfer(x extParty, receiver coin.PartyID, amount, instrumentAdmin, reason string, discloseHoldings bool) cliCompletion {
	c.t.Helper()
	held := c.holdings(x)
	if len(held) == 0 {
		c.t.Fatal("Sender has no holdings, so transfer can't be executed.")
	}
	inputs := []string{}
	for _, h := range held {
		inputs = append(inputs, h.ContractID)
	}
	now := c.e.clock.Now().UTC() // dayjs() as JSON: ISO 8601, milliseconds, Z
	args := map[string]any{
		"expectedAdmin": instrumentAdmin,
		"transfer": map[string]any{
			"sender": x.party, "receiver": receiver, "amount": amount,
			"instrumentId": map[string]any{"admin": instrumentAdmin, "id": "Amulet"}, "lock": nil,
			"requestedAt":      now.Format("2006-01-02T15:04:05.000Z"),
			"executeBefore":    now.Add(24 * time.Hour).Format("2006-01-02T15:04:05.000Z"),
			"inputHoldingCids": inputs,
			"meta":             map[string]any{"values": map[string]any{reasonMetaKey: reason}},
		},
		"extraArgs": map[string]any{"context": map[string]any{"values": map[string]any{}}, "meta": map[string]any{"values": map[string]any{}}},
	}
	factory := c.decode(c.call("", http.MethodPost, registryPrefix+"/transfer-factory", map[string]any{"choiceArguments": args}))
	args["extraArgs"].(map[string]any)["context"] = c.get(factory, "choiceContext", "choiceContextData")
	ex := map[string]any{"templateId": factoryIface, "contractId": c.str(factory, "factoryId"),
		"choice": "TransferFactory_Transfer", "choiceArgument": args}
	disclose := c.list(factory, "choiceContext", "disclosedContracts")
	if discloseHoldings {
		var own []any
		for _, h := range held {
			own = append(own, h.disclosed)
		}
		disclose = append(own, disclose...)
	}
	return c.submit(x, ex, disclose)
}

// holdings is the CLI's list-holdings: x's active contracts through the
// Holding interface at the ledger end (the deprecated `filter` field),
// each with its Holding view. The blob and synchronizer are read too, as
// the CLI's earlier transfer disclosed the sender's holdings with them.
func (c *tscli) holdings(x extParty) []cliHolding {
	c.t.Helper()
	end := c.ledgerEnd(x.user)
	acs, ok := c.decode(c.call(x.user, http.MethodPost, "/v2/state/active-contracts", map[string]any{
		"filter":  map[string]any{"filtersByParty": cliFilters(x.party, []string{holdingIface}, false)},
		"verbose": false, "activeAtOffset": end,
	})).([]any)
	if !ok {
		c.t.Fatal("active contracts: not an array")
	}
	p := &cliParser{c: c, party: string(x.party), user: x.user}
	var out []cliHolding
	for _, h := range acs {
		ac := c.obj(h, "contractEntry", "JsActiveContract")
		if c.str(ac, "synchronizerId") != c.e.l.SynchronizerID() || c.str(ac, "createdEvent", "createdEventBlob") == "" {
			c.t.Errorf("active holding %v: no synchronizer or blob", ac)
		}
		ev := c.obj(ac, "createdEvent")
		c.str(ev, "templateId")
		h := p.holding(p.viewOf(ev, holdingIface), c.str(ev, "contractId"))
		h.disclosed = map[string]any{"contractId": h.ContractID, "createdEventBlob": ev["createdEventBlob"],
			"synchronizerId": ac["synchronizerId"], "templateId": ev["templateId"]}
		out = append(out, h)
	}
	return out
}

// accept is the CLI's accept-transfer-instruction: the registry's accept
// context (an empty request), TransferInstruction_Accept by interface.
func (c *tscli) accept(x extParty, instruction string) cliCompletion {
	c.t.Helper()
	return c.instructionChoice(x, instruction, "accept", "TransferInstruction_Accept")
}

// instructionChoice is accept's path for another choice on the
// instruction (the CLI has a command for accept only).
func (c *tscli) instructionChoice(x extParty, instruction, context, choice string) cliCompletion {
	c.t.Helper()
	cc := c.decode(c.call("", http.MethodPost, registryPrefix+"/"+url.PathEscape(instruction)+"/choice-contexts/"+context, map[string]any{}))
	ex := map[string]any{"templateId": instructionIface, "contractId": instruction, "choice": choice,
		"choiceArgument": map[string]any{"extraArgs": map[string]any{"context": c.get(cc, "choiceContextData"), "meta": map[string]any{"values": map[string]any{}}}}}
	return c.submit(x, ex, c.list(cc, "disclosedContracts"))
}

// submit is the CLI's submitExerciseCommand: the synchronizer of the
// disclosed contracts (all one), prepare with verbose hashing, a RAW
// Ed25519 signature by the key's fingerprint (computed as the CLI does),
// execute, then the completions from the ledger end read before the
// execute until the command's own, which must have succeeded.
func (c *tscli) submit(x extParty, ex map[string]any, disclosedFromRegistry []any) cliCompletion {
	c.t.Helper()
	if len(disclosedFromRegistry) == 0 {
		c.t.Fatal("the registry's choice context discloses nothing: the CLI reads the synchronizer from the first")
	}
	var disclosed []any
	sync := c.str(disclosedFromRegistry[0], "synchronizerId")
	for _, d := range disclosedFromRegistry {
		if c.str(d, "synchronizerId") != sync {
			c.t.Fatalf("Contract is in a different domain: %v", d)
		}
		// The Ledger API client serializes the four fields of its own DisclosedContract.
		disclosed = append(disclosed, map[string]any{"templateId": c.str(d, "templateId"), "contractId": c.str(d, "contractId"),
			"createdEventBlob": c.str(d, "createdEventBlob"), "synchronizerId": sync})
	}
	commandID, submissionID := "tscli-"+uuid(c.t), uuid(c.t)
	prep := c.decode(c.call(x.user, http.MethodPost, "/v2/interactive-submission/prepare", map[string]any{
		"actAs": []any{x.party}, "readAs": []any{x.party}, "userId": x.user, "commandId": commandID, "synchronizerId": sync,
		"commands": []any{map[string]any{"ExerciseCommand": ex}}, "disclosedContracts": disclosed,
		"verboseHashing": true, "packageIdSelectionPreference": []any{},
	}))
	hash, err := base64.StdEncoding.DecodeString(c.str(prep, "preparedTransactionHash"))
	if err != nil {
		c.t.Fatal(err)
	}
	pub := x.key.Public().(ed25519.PublicKey)
	fp := sha256.Sum256(append([]byte{0, 0, 0, 0x0c}, pub...))
	sigs := map[string]any{"signatures": []any{map[string]any{"party": x.party, "signatures": []any{map[string]any{
		"signature": base64.StdEncoding.EncodeToString(ed25519.Sign(x.key, hash)), "signedBy": "1220" + hex.EncodeToString(fp[:]),
		"format": "SIGNATURE_FORMAT_RAW", "signingAlgorithmSpec": "SIGNING_ALGORITHM_SPEC_ED25519",
	}}}}}
	begin := c.ledgerEnd(x.user)
	c.call(x.user, http.MethodPost, "/v2/interactive-submission/execute", map[string]any{
		"userId": x.user, "submissionId": submissionID, "preparedTransaction": c.str(prep, "preparedTransaction"),
		"hashingSchemeVersion": c.str(prep, "hashingSchemeVersion"), "partySignatures": sigs,
		"deduplicationPeriod": map[string]any{"Empty": map[string]any{}},
	})
	for range 50 { // the CLI polls for 90 s; each read waits a second idle
		rs := c.decode(c.call(x.user, http.MethodPost, "/v2/commands/completions?limit=100&stream_idle_timeout_ms=1000",
			map[string]any{"userId": x.user, "parties": []any{x.party}, "beginExclusive": begin})).([]any)
		var last int64
		for _, r := range rs {
			comp, ok := opt(r, "completionResponse", "Completion").(map[string]any)
			if !ok {
				continue
			}
			v := c.obj(comp, "value")
			last = c.num(v, "offset")
			if v["userId"] != x.user || v["commandId"] != commandID || v["submissionId"] != submissionID {
				continue
			}
			if code, _ := opt(v, "status", "code").(float64); code != 0 {
				c.t.Fatalf("Command failed with status: %v", v["status"])
			}
			return cliCompletion{UpdateID: c.str(v, "updateId"), SynchronizerID: c.str(v, "synchronizerTime", "synchronizerId"),
				RecordTime: c.str(v, "synchronizerTime", "recordTime")}
		}
		if last > 0 {
			begin = last
		}
	}
	c.t.Fatalf("no completion for %s", commandID)
	return cliCompletion{}
}

// cliHolding is the CLI's Holding: a HoldingView with its contract id.
type cliHolding struct {
	ContractID, Owner, Amount string
	Locked                    bool
	disclosed                 map[string]any // as the earlier CLI disclosed an active one
}

// cliEvent is a TokenStandardEvent of the CLI's parser.
type cliEvent struct {
	Label                             map[string]any
	UnlockedCreates, UnlockedArchives []cliHolding
	LockedCreates, LockedArchives     []cliHolding
	TransferInstruction               map[string]any
}

type cliTx struct {
	UpdateID, RecordTime, SynchronizerID string
	Offset                               int64
	Events                               []cliEvent
}

// holdingTxs is the CLI's list-holding-txs with --strict for party: the
// pruning offset when no offset is given, /v2/updates/flats with the
// token standard's interfaces and a wildcard, ledger effects; each
// transaction parsed as the CLI parses it.
func (c *tscli) holdingTxs(x extParty, afterOffset int64) (txs []cliTx, nextOffset int64) {
	c.t.Helper()
	if afterOffset == 0 {
		afterOffset = c.num(c.decode(c.call(x.user, http.MethodGet, "/v2/state/latest-pruned-offsets", nil)), "participantPrunedUpToInclusive")
	}
	ups := c.decode(c.call(x.user, http.MethodPost, "/v2/updates/flats", map[string]any{
		"updateFormat": map[string]any{"includeTransactions": map[string]any{
			"eventFormat":      map[string]any{"filtersByParty": cliFilters(x.party, []string{holdingIface, factoryIface, instructionIface}, true), "verbose": false},
			"transactionShape": "TRANSACTION_SHAPE_LEDGER_EFFECTS",
		}},
		"beginExclusive": afterOffset, "verbose": false,
	})).([]any)
	for _, u := range ups {
		if cp := opt(u, "update", "OffsetCheckpoint"); cp != nil {
			nextOffset = max(nextOffset, c.num(cp, "value", "offset"))
		}
		tx := opt(u, "update", "Transaction", "value")
		if tx == nil {
			continue
		}
		p := &cliParser{c: c, party: string(x.party), user: x.user, tx: tx.(map[string]any)}
		parsed := cliTx{UpdateID: c.str(tx, "updateId"), Offset: c.num(tx, "offset"), RecordTime: c.str(tx, "recordTime"),
			SynchronizerID: c.str(tx, "synchronizerId"), Events: p.parse()}
		nextOffset = max(nextOffset, parsed.Offset)
		if len(parsed.Events) > 0 {
			txs = append(txs, parsed)
		}
	}
	// --strict: every create or archive must be under a known choice.
	for _, tx := range txs {
		for _, ev := range tx.Events {
			if k := ev.Label["type"]; k == "Create" || k == "Archive" {
				c.t.Errorf("Found creates / archives that are not under a known choice: %v in %s", ev.Label, tx.UpdateID)
			}
		}
	}
	return txs, nextOffset
}

// cliParser is the CLI's TransactionParser of one transaction for party.
type cliParser struct {
	c     *tscli
	party string
	user  string
	tx    map[string]any
}

// node is one event: its node id and which kind (an exercise of Archive
// counts as an archive, as in the CLI).
type cliNode struct {
	id                           int64
	created, archived, exercised map[string]any
}

func (p *cliParser) node(ev any) cliNode {
	c := p.c
	c.t.Helper()
	m, _ := ev.(map[string]any)
	switch {
	case m["ExercisedEvent"] != nil:
		x := c.obj(m, "ExercisedEvent")
		if c.str(x, "choice") == "Archive" {
			return cliNode{id: c.num(x, "nodeId"), archived: x}
		}
		return cliNode{id: c.num(x, "nodeId"), exercised: x}
	case m["CreatedEvent"] != nil:
		x := c.obj(m, "CreatedEvent")
		return cliNode{id: c.num(x, "nodeId"), created: x}
	case m["ArchivedEvent"] != nil:
		x := c.obj(m, "ArchivedEvent")
		return cliNode{id: c.num(x, "nodeId"), archived: x}
	}
	c.t.Fatalf("Impossible event type: %v", ev)
	return cliNode{}
}

func (p *cliParser) parse() []cliEvent {
	var out []cliEvent
	continueAfter := int64(-1)
	events, _ := opt(p.tx, "events").([]any)
	for _, ev := range events {
		n := p.node(ev)
		if n.id <= continueAfter {
			continue
		}
		var parsed *cliEvent
		var leafEnd int64
		switch {
		case n.created != nil:
			parsed, leafEnd = p.raw(n.created, "Create", n.created), n.id
		case n.archived != nil:
			if created := p.eventsForArchive(n.archived); created != nil {
				parsed, leafEnd = p.raw(created, "Archive", n.archived), n.id
			}
		default:
			parsed = p.exercise(n.exercised)
			leafEnd = p.c.num(n.exercised, "lastDescendantNodeId")
		}
		if parsed == nil {
			continue
		}
		if len(parsed.UnlockedCreates)+len(parsed.UnlockedArchives)+len(parsed.LockedCreates)+len(parsed.LockedArchives) > 0 {
			out = append(out, *parsed)
		}
		continueAfter = leafEnd
	}
	return out
}

// knownView is the first interface view if it is a Holding or a
// TransferInstruction view.
func (p *cliParser) knownView(created map[string]any) (kind string, view map[string]any) {
	views, _ := created["interfaceViews"].([]any)
	if len(views) == 0 {
		return "", nil
	}
	id := p.c.str(views[0], "interfaceId")
	switch {
	case strings.HasSuffix(id, templateSuffix(holdingIface)):
		kind = "Holding"
	case strings.HasSuffix(id, templateSuffix(instructionIface)):
		kind = "TransferInstruction"
	default:
		return "", nil
	}
	return kind, p.c.obj(views[0], "viewValue")
}

// raw is a create or archive outside a known choice: a Holding of the
// party or an instruction it is party to; nothing otherwise.
func (p *cliParser) raw(created map[string]any, kind string, ev map[string]any) *cliEvent {
	c := p.c
	k, view := p.knownView(created)
	label := map[string]any{"type": kind, "contractId": c.str(ev, "contractId"), "templateId": c.str(ev, "templateId"),
		"packageName": c.str(ev, "packageName"), "offset": c.num(ev, "offset")}
	switch k {
	case "Holding":
		if c.str(view, "owner") != p.party {
			return nil
		}
		h := p.holding(view, c.str(created, "contractId"))
		e := &cliEvent{Label: label}
		if h.Locked {
			e.LockedCreates = []cliHolding{h}
		} else {
			e.UnlockedCreates = []cliHolding{h}
		}
		return e
	case "TransferInstruction":
		if c.str(view, "transfer", "sender") != p.party && c.str(view, "transfer", "receiver") != p.party {
			return nil
		}
		return &cliEvent{Label: label, TransferInstruction: view}
	}
	return nil
}

// holding reads a HoldingView as the CLI does; its amount a Decimal text
// with 10 fractional digits, as Canton renders Numeric 10.
func (p *cliParser) holding(view map[string]any, cid string) cliHolding {
	c := p.c
	c.t.Helper()
	amount := c.str(view, "amount")
	if _, err := coin.ParseAmount(amount); err != nil || !strings.Contains(amount, ".") || len(amount)-strings.Index(amount, ".")-1 != 10 {
		c.t.Errorf("holding %s: amount %q, want a decimal with 10 fractional digits", cid, amount)
	}
	c.str(view, "instrumentId", "admin")
	c.str(view, "instrumentId", "id")
	c.obj(view, "meta")
	return cliHolding{ContractID: cid, Owner: c.str(view, "owner"), Amount: amount, Locked: opt(view, "lock") != nil}
}

// eventsForArchive is the CLI's getEventsForArchive: nothing unless the
// party witnessed it; else events-by-contract-id must show both the
// create and the archive (a 404 is nothing); it returns the created event.
func (p *cliParser) eventsForArchive(ev map[string]any) map[string]any {
	c := p.c
	c.t.Helper()
	witnessed := false
	for _, w := range c.list(ev, "witnessParties") {
		witnessed = witnessed || w == p.party
	}
	if !witnessed {
		return nil
	}
	code, b := c.try(p.user, http.MethodPost, "/v2/events/events-by-contract-id", map[string]any{
		"contractId":        c.str(ev, "contractId"),
		"eventFormat":       map[string]any{"filtersByParty": cliFilters(coin.PartyID(p.party), []string{holdingIface, instructionIface}, true), "verbose": false},
		"requestingParties": []any{},
	})
	if code == http.StatusNotFound {
		return nil
	}
	if code != http.StatusOK {
		c.t.Fatalf("events-by-contract-id %s: %d %s", ev["contractId"], code, b)
	}
	r := c.decode(b)
	created, archived := opt(r, "created"), opt(r, "archived")
	if created == nil || archived == nil {
		c.t.Fatalf("Archival of %s does not have a corresponding create/archive event: %s", ev["contractId"], b)
	}
	c.obj(archived, "archivedEvent")
	return c.obj(created, "createdEvent")
}

// viewOf is the CLI's ensureInterfaceViewIsPresent.
func (p *cliParser) viewOf(created map[string]any, iface string) map[string]any {
	c := p.c
	c.t.Helper()
	views, _ := created["interfaceViews"].([]any)
	if len(views) == 0 {
		c.t.Fatalf("Expected to have interface views, but didn't: %v", created)
	}
	if id := c.str(views[0], "interfaceId"); !strings.HasSuffix(id, templateSuffix(iface)) {
		c.t.Fatalf("Not a %s but a %s: %v", iface, id, created)
	}
	return c.obj(views[0], "viewValue")
}

func hasHoldingInterface(ev map[string]any) bool {
	ids, _ := ev["implementedInterfaces"].([]any)
	for _, id := range ids {
		if s, _ := id.(string); strings.HasSuffix(s, templateSuffix(holdingIface)) {
			return true
		}
	}
	return false
}

// metas merges the meta values of the transfer, the extra arguments, the
// argument and the result, the last written winning.
func (p *cliParser) metas(ex map[string]any) map[string]string {
	out := map[string]string{}
	for _, m := range []any{opt(ex, "choiceArgument", "transfer", "meta"), opt(ex, "choiceArgument", "extraArgs", "meta"),
		opt(ex, "choiceArgument", "meta"), opt(ex, "exerciseResult", "meta")} {
		vals, _ := opt(m, "values").(map[string]any)
		for k, v := range vals {
			s, ok := v.(string)
			if !ok {
				p.c.t.Errorf("meta %s: %v is not text", k, v)
			}
			out[k] = s
		}
	}
	return out
}

// exercise parses a known choice (nil for one whose children are parsed).
func (p *cliParser) exercise(ex map[string]any) *cliEvent {
	c := p.c
	c.t.Helper()
	choice := c.str(ex, "choice")
	var e *cliEvent
	switch choice {
	case "TransferFactory_Transfer":
		e = p.transfer(ex, choice, "")
	case "TransferInstruction_Accept", "TransferInstruction_Reject", "TransferInstruction_Withdraw", "TransferInstruction_Update":
		e = p.fromInstruction(ex, choice)
	case "BurnMintFactory_BurnMint":
		e = p.mergeSplit(ex, choice)
	default:
		switch kind := p.metas(ex)[cliTxKindKey]; kind {
		case "":
			return nil
		case "transfer":
			e = p.transfer(ex, "", "")
		case "merge-split", "burn", "mint":
			e = p.mergeSplit(ex, "")
		case "unlock", "expire-dust":
			e = p.basic(ex, map[string]string{"unlock": "Unlock", "expire-dust": "ExpireDust"}[kind])
		default:
			c.t.Fatalf("Unknown tx-kind '%s' in %v", kind, ex)
		}
	}
	return e
}

// children is the CLI's getChildren: the holdings created and archived
// below ex (ex itself when it archives a holding), transients removed,
// then split by lock, the party's only.
func (p *cliParser) children(into *cliEvent, exEv map[string]any) (creates, archives []cliHolding) {
	c := p.c
	c.t.Helper()
	if b, _ := exEv["consuming"].(bool); b && hasHoldingInterface(exEv) {
		if created := p.eventsForArchive(exEv); created != nil {
			archives = append(archives, p.holding(p.viewOf(created, holdingIface), c.str(exEv, "contractId")))
		}
	}
	from, to := c.num(exEv, "nodeId"), c.num(exEv, "lastDescendantNodeId")
	events, _ := opt(p.tx, "events").([]any)
	for _, ev := range events {
		n := p.node(ev)
		if n.id <= from || n.id > to {
			continue
		}
		switch {
		case n.created != nil:
			if k, view := p.knownView(n.created); k == "Holding" {
				creates = append(creates, p.holding(view, c.str(n.created, "contractId")))
			}
		case n.archived != nil && hasHoldingInterface(n.archived), n.exercised != nil && n.exercised["consuming"] == true && hasHoldingInterface(n.exercised):
			arch := n.archived
			if arch == nil {
				arch = n.exercised
			}
			if created := p.eventsForArchive(arch); created != nil {
				archives = append(archives, p.holding(p.viewOf(created, holdingIface), c.str(arch, "contractId")))
			}
		}
	}
	in := func(hs []cliHolding, cid string) bool {
		for _, h := range hs {
			if h.ContractID == cid {
				return true
			}
		}
		return false
	}
	var cs, as []cliHolding
	for _, h := range creates {
		if !in(archives, h.ContractID) {
			cs = append(cs, h)
		}
	}
	for _, h := range archives {
		if !in(creates, h.ContractID) {
			as = append(as, h)
		}
	}
	split := func(hs []cliHolding, locked, unlocked *[]cliHolding) {
		for _, h := range hs {
			switch {
			case h.Owner != p.party:
			case h.Locked:
				*locked = append(*locked, h)
			default:
				*unlocked = append(*unlocked, h)
			}
		}
	}
	split(cs, &into.LockedCreates, &into.UnlockedCreates)
	split(as, &into.LockedArchives, &into.UnlockedArchives)
	return cs, as
}

// sum adds decimal amounts exactly.
func sum(hs []cliHolding, keep func(cliHolding) bool) *big.Rat {
	total := new(big.Rat)
	for _, h := range hs {
		if keep(h) {
			r, ok := new(big.Rat).SetString(h.Amount)
			if !ok {
				panic(h.Amount)
			}
			total.Add(total, r)
		}
	}
	return total
}

// amountChanges is the CLI's computeAmountChanges: burn from the meta,
// mint what the holdings grew by plus the burn.
func (p *cliParser) amountChanges(label map[string]any, creates, archives []cliHolding, meta map[string]string) {
	burn := new(big.Rat)
	if b := meta[cliBurnedKey]; b != "" {
		if _, ok := burn.SetString(b); !ok {
			p.c.t.Errorf("burned %q is not a number", b)
		}
	}
	all := func(cliHolding) bool { return true }
	mint := new(big.Rat).Sub(sum(creates, all), sum(archives, all))
	mint.Add(mint, burn)
	label["burnAmount"], label["mintAmount"] = burn.FloatString(10), mint.FloatString(10)
}

func (p *cliParser) transfer(ex map[string]any, choice, senderFromInstruction string) *cliEvent {
	c := p.c
	c.t.Helper()
	meta := p.metas(ex)
	sender := senderFromInstruction
	if sender == "" {
		sender = meta[cliSenderKey]
	}
	if sender == "" {
		sender = c.str(ex, "choiceArgument", "transfer", "sender")
	}
	e := &cliEvent{}
	creates, archives := p.children(e, ex)
	receivers := map[string]*big.Rat{}
	for _, h := range creates {
		if h.Owner != sender {
			if receivers[h.Owner] == nil {
				receivers[h.Owner] = new(big.Rat)
			}
			r, _ := new(big.Rat).SetString(h.Amount)
			receivers[h.Owner].Add(receivers[h.Owner], r)
		}
	}
	label := map[string]any{"tokenStandardChoice": choice, "reason": meta[reasonMetaKey], "meta": meta}
	switch {
	case len(receivers) == 0:
		label["type"] = "MergeSplit"
		p.amountChanges(label, creates, archives, meta)
	case sender == p.party:
		label["type"] = "TransferOut"
		p.amountChanges(label, creates, archives, meta)
		amounts := map[string]string{}
		for k, v := range receivers {
			amounts[k] = v.FloatString(10)
		}
		label["receiverAmounts"] = amounts
	default:
		label["type"], label["sender"], label["burnAmount"], label["mintAmount"] = "TransferIn", sender, "0", "0"
	}
	e.Label = label
	e.TransferInstruction = map[string]any{"transfer": opt(ex, "choiceArgument", "transfer")}
	return e
}

func (p *cliParser) mergeSplit(ex map[string]any, choice string) *cliEvent {
	meta := p.metas(ex)
	kind := map[string]string{"burn": "Burn", "mint": "Mint"}[meta[cliTxKindKey]]
	if kind == "" {
		kind = "MergeSplit"
	}
	return p.labelled(ex, kind, choice, meta)
}

func (p *cliParser) basic(ex map[string]any, kind string) *cliEvent {
	return p.labelled(ex, kind, "", p.metas(ex))
}

func (p *cliParser) labelled(ex map[string]any, kind, choice string, meta map[string]string) *cliEvent {
	e := &cliEvent{}
	creates, archives := p.children(e, ex)
	e.Label = map[string]any{"type": kind, "tokenStandardChoice": choice, "reason": meta[reasonMetaKey], "meta": meta}
	p.amountChanges(e.Label, creates, archives, meta)
	return e
}

// fromInstruction parses a TransferInstruction choice: the instruction's
// create must be readable with its view; the result's output tag decides.
func (p *cliParser) fromInstruction(ex map[string]any, choice string) *cliEvent {
	c := p.c
	c.t.Helper()
	created := p.eventsForArchive(ex)
	if created == nil {
		return nil
	}
	view := p.viewOf(created, instructionIface)
	c.obj(view, "transfer")
	c.obj(view, "status")
	c.obj(view, "meta")
	var e *cliEvent
	switch tag := c.str(ex, "exerciseResult", "output", "tag"); tag {
	case "TransferInstructionResult_Failed", "TransferInstructionResult_Pending":
		e = p.mergeSplit(ex, choice)
	case "TransferInstructionResult_Completed":
		e = p.transfer(ex, choice, c.str(view, "transfer", "sender"))
	default:
		c.t.Fatalf("Unknown TransferInstructionResult: %s", tag)
	}
	e.TransferInstruction = map[string]any{"originalInstructionCid": view["originalInstructionCid"], "transfer": view["transfer"], "statusBefore": view["status"]}
	return e
}

// TestTokenStandardCLIFlows drives a fresh ccwallet the way the
// token-standard CLI does: alice (external) taps; `transfer` to bob, who
// has no preapproval, leaves an instruction pending; bob
// `accept-transfer-instruction`s it; `transfer` to carol, who has a
// preapproval, completes at once; bob rejects a second instruction;
// `list-holdings` and `list-holding-txs --strict` for each read every
// field the CLI reads and label each change as the CLI would, amounts
// exact.
func TestTokenStandardCLIFlows(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e *env) {
		cli := newTSCLI(t, e)
		dso, op := e.l.DSO(), e.l.Operator()
		alice, bob, carol := e.external("alice-cli", ""), e.external("bob-cli", ""), e.external("carol-cli", "")
		ledgertest.Mint(t, e.l, op, "100000") // the operator pays for carol's preapproval
		disclose, round := e.rulesContext(alice.party)
		e.run(alice, "tap", e.tapCommand(alice.party, "100", round), disclose)
		e.run(carol, "preapproval", e.proposal(carol.party, op, &dso), nil)

		// transfer to bob: pending.
		c1 := cli.transfer(alice, bob.party, "25", string(dso), "lunch", false)
		if c1.UpdateID == "" || c1.SynchronizerID != e.l.SynchronizerID() || c1.RecordTime == "" {
			t.Errorf("transfer's completion %+v", c1)
		}
		ins := e.acs(bob.user, filter(bob.party, interfaceFilter(instructionIface, true, false)), e.ledgerEnd())
		if len(ins) != 1 {
			t.Fatalf("bob sees %d instructions, want 1", len(ins))
		}
		first := ins[0].ContractID
		// accept-transfer-instruction.
		c2 := cli.accept(bob, first)
		// transfer to carol: completed at once (disclosing her holdings as
		// the earlier CLI did).
		c3 := cli.transfer(alice, carol.party, "10.5", string(dso), "rent", true)
		// bob rejects a second instruction: alice gets her locked coin back.
		cli.transfer(alice, bob.party, "5", string(dso), "refused", false)
		ins = e.acs(bob.user, filter(bob.party, interfaceFilter(instructionIface, true, false)), e.ledgerEnd())
		if len(ins) != 1 {
			t.Fatalf("bob sees %d instructions, want 1", len(ins))
		}
		c4 := cli.instructionChoice(bob, ins[0].ContractID, "reject", "TransferInstruction_Reject")
		// list-holdings.
		for i, x := range []extParty{alice, bob, carol} {
			if got, want := change(cli.holdings(x), nil), []string{"64.5000000000", "25.0000000000", "10.5000000000"}[i]; got != want {
				t.Errorf("%s holds %s, want %s", x.user, got, want)
			}
		}

		// The results of the two TransferFactory_Transfer exercises, as the
		// CLI's transfer reads them: Pending with the instruction, Completed
		// with carol's holding.
		tags := map[string]any{}
		for _, u := range cli.decode(cli.call(alice.user, http.MethodPost, "/v2/updates/flats", map[string]any{
			"updateFormat": map[string]any{"includeTransactions": map[string]any{"eventFormat": map[string]any{
				"filtersByParty": cliFilters(alice.party, []string{holdingIface, factoryIface, instructionIface}, true), "verbose": false},
				"transactionShape": "TRANSACTION_SHAPE_LEDGER_EFFECTS"}},
			"beginExclusive": 0, "verbose": false,
		})).([]any) {
			for _, ev := range asList(opt(u, "update", "Transaction", "value", "events")) {
				if x, ok := opt(ev, "ExercisedEvent").(map[string]any); ok && x["choice"] == "TransferFactory_Transfer" {
					tags[cli.str(u, "update", "Transaction", "value", "updateId")] = cli.obj(x, "exerciseResult")
				}
			}
		}
		if r := tags[c1.UpdateID]; cli.str(r, "output", "tag") != "TransferInstructionResult_Pending" || cli.str(r, "output", "value", "transferInstructionCid") != first {
			t.Errorf("the transfer to bob's result %v, want Pending with %s", r, first)
		}
		if r := tags[c3.UpdateID]; cli.str(r, "output", "tag") != "TransferInstructionResult_Completed" || len(cli.list(r, "output", "value", "receiverHoldingCids")) != 1 {
			t.Errorf("the transfer to carol's result %v, want Completed with one holding", r)
		}

		type want struct {
			update, kind string
			fields       map[string]any
			unlocked     string // the party's unlocked holdings' change ("": not checked)
			locked       string
		}
		check := func(x extParty, wants []want) (events []cliEvent) {
			t.Helper()
			txs, next := cli.holdingTxs(x, 0)
			// --after-offset nextOffset, as a user pages on: nothing new.
			if more, again := cli.holdingTxs(x, next); len(more) != 0 || again > next {
				t.Errorf("%s: after offset %d: %d transactions, next offset %d", x.user, next, len(more), again)
			}
			var got []string
			for _, tx := range txs {
				if tx.SynchronizerID != e.l.SynchronizerID() || tx.RecordTime == "" || tx.Offset <= 0 || tx.Offset > next {
					t.Errorf("%s: transaction %+v", x.user, tx)
				}
				for _, ev := range tx.Events {
					got = append(got, tx.UpdateID+" "+ev.Label["type"].(string))
				}
			}
			if len(got) != len(wants) {
				t.Fatalf("%s: events %v, want %d", x.user, got, len(wants))
			}
			i := 0
			for _, tx := range txs {
				for _, ev := range tx.Events {
					w := wants[i]
					i++
					if w.update != "" && tx.UpdateID != w.update || ev.Label["type"] != w.kind {
						t.Errorf("%s: event %d %s %v, want %s in %s", x.user, i, tx.UpdateID, ev.Label, w.kind, w.update)
						continue
					}
					for k, v := range w.fields {
						if g := fmt.Sprint(ev.Label[k]); g != fmt.Sprint(v) {
							t.Errorf("%s: %s's %s %s, want %v", x.user, w.kind, k, g, v)
						}
					}
					events = append(events, ev)
					if w.unlocked == "" {
						continue
					}
					if g := change(ev.UnlockedCreates, ev.UnlockedArchives); g != w.unlocked {
						t.Errorf("%s: %s changes the unlocked holdings by %s, want %s", x.user, w.kind, g, w.unlocked)
					}
					if g := change(ev.LockedCreates, ev.LockedArchives); g != w.locked {
						t.Errorf("%s: %s changes the locked holdings by %s, want %s", x.user, w.kind, g, w.locked)
					}
				}
			}
			return events
		}
		// The pending transfer locks the amount and the fees it may cost
		// (as Splice does); the accept unlocks it, the receiver's share
		// going to bob and the rest back to alice.
		aliceEvents := check(alice, []want{
			{kind: "Mint", fields: map[string]any{"tokenStandardChoice": "", "mintAmount": "100.0000000000"}, unlocked: "100.0000000000", locked: "0.0000000000"},
			{update: c1.UpdateID, kind: "MergeSplit", fields: map[string]any{"reason": "lunch", "tokenStandardChoice": "TransferFactory_Transfer"}},
			{update: c2.UpdateID, kind: "TransferOut", fields: map[string]any{"tokenStandardChoice": "TransferInstruction_Accept",
				"receiverAmounts": map[string]string{string(bob.party): "25.0000000000"}}},
			{update: c3.UpdateID, kind: "TransferOut", fields: map[string]any{"reason": "rent", "tokenStandardChoice": "TransferFactory_Transfer",
				"receiverAmounts": map[string]string{string(carol.party): "10.5000000000"}}, unlocked: "-10.5000000000", locked: "0.0000000000"},
			{kind: "MergeSplit", fields: map[string]any{"reason": "refused", "tokenStandardChoice": "TransferFactory_Transfer"}},
			{update: c4.UpdateID, kind: "MergeSplit", fields: map[string]any{"tokenStandardChoice": "TransferInstruction_Reject", "mintAmount": "0.0000000000"}},
		})
		if len(aliceEvents) == 6 {
			if a, b := aliceEvents[5].lockedRat(), aliceEvents[4].lockedRat(); new(big.Rat).Add(a, b).Sign() != 0 || b.Cmp(big.NewRat(5, 1)) < 0 {
				t.Errorf("the rejected transfer locked %s, the reject unlocked %s", b.FloatString(10), a.FloatString(10))
			}
			if g := change(aliceEvents[5].UnlockedCreates, aliceEvents[5].UnlockedArchives); g != aliceEvents[4].lockedRat().FloatString(10) {
				t.Errorf("the reject returns %s to alice, want %s", g, aliceEvents[4].lockedRat().FloatString(10))
			}
			locked := change(aliceEvents[1].LockedCreates, aliceEvents[1].LockedArchives)
			if l, _ := new(big.Rat).SetString(locked); l.Cmp(big.NewRat(25, 1)) < 0 || len(aliceEvents[1].LockedCreates) != 1 {
				t.Errorf("the pending transfer locks %s in %d holdings, want at least 25 in one", locked, len(aliceEvents[1].LockedCreates))
			}
			if g := change(aliceEvents[1].UnlockedCreates, aliceEvents[1].UnlockedArchives); g != "-"+locked {
				t.Errorf("the pending transfer changes alice's unlocked holdings by %s, want -%s", g, locked)
			}
			if g := change(aliceEvents[2].LockedCreates, aliceEvents[2].LockedArchives); g != "-"+locked {
				t.Errorf("the accept changes alice's locked holdings by %s, want -%s", g, locked)
			}
			back := new(big.Rat).Sub(aliceEvents[1].lockedRat(), big.NewRat(25, 1)).FloatString(10)
			if g := change(aliceEvents[2].UnlockedCreates, aliceEvents[2].UnlockedArchives); g != back {
				t.Errorf("the accept returns %s to alice, want %s", g, back)
			}
		}
		check(bob, []want{{update: c2.UpdateID, kind: "TransferIn", fields: map[string]any{"sender": alice.party,
			"tokenStandardChoice": "TransferInstruction_Accept"}, unlocked: "25.0000000000", locked: "0.0000000000"}})
		check(carol, []want{{update: c3.UpdateID, kind: "TransferIn", fields: map[string]any{"sender": alice.party, "reason": "rent"},
			unlocked: "10.5000000000", locked: "0.0000000000"}})
	})
}

// change is what holdings cs created and as archived add up to.
func change(cs, as []cliHolding) string {
	all := func(cliHolding) bool { return true }
	return new(big.Rat).Sub(sum(cs, all), sum(as, all)).FloatString(10)
}

func (e cliEvent) lockedRat() *big.Rat {
	r, _ := new(big.Rat).SetString(change(e.LockedCreates, e.LockedArchives))
	return r
}

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}

// TestTokenStandardCLIHoldingFees: transfers of coin that has paid
// holding fees over some rounds (to a receiver with a preapproval, to one
// without, its accept after more rounds, a merge) show, in the CLI's
// list-holding-txs, nothing minted: the CLI derives mint from the
// holdings' change and the burn in the result's metadata.
func TestTokenStandardCLIHoldingFees(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		cli := newTSCLI(t, e)
		dso, op := e.l.DSO(), e.l.Operator()
		alice, bob, carol := e.external("alice-cli", ""), e.external("bob-cli", ""), e.external("carol-cli", "")
		ledgertest.Mint(t, e.l, op, "100000")
		disclose, round := e.rulesContext(alice.party)
		e.run(alice, "tap", e.tapCommand(alice.party, "100", round), disclose)
		e.run(carol, "preapproval", e.proposal(carol.party, op, &dso), nil)
		if _, err := devnet.New(e.l).AdvanceRounds(ctx, 20); err != nil {
			t.Fatal(err)
		}
		ups := map[string]string{
			cli.transfer(alice, carol.party, "10", string(dso), "late", false).UpdateID: "to carol",
			cli.transfer(alice, bob.party, "20", string(dso), "later", false).UpdateID:  "to bob",
		}
		if _, err := devnet.New(e.l).AdvanceRounds(ctx, 10); err != nil {
			t.Fatal(err)
		}
		ins := e.acs(bob.user, filter(bob.party, interfaceFilter(instructionIface, true, false)), e.ledgerEnd())
		if len(ins) != 1 {
			t.Fatalf("bob sees %d instructions, want 1", len(ins))
		}
		ups[cli.accept(bob, ins[0].ContractID).UpdateID] = "bob accepts"
		ups[cli.transfer(alice, alice.party, "1", string(dso), "merge", false).UpdateID] = "merge"
		for _, x := range []extParty{alice, bob, carol} {
			txs, _ := cli.holdingTxs(x, 0)
			for _, tx := range txs {
				for _, ev := range tx.Events {
					mint, _ := new(big.Rat).SetString(fmt.Sprint(ev.Label["mintAmount"]))
					if what, ok := ups[tx.UpdateID]; ok && (mint == nil || mint.Sign() != 0) {
						t.Errorf("%s sees %s (%s) mint %v, burn %v; want nothing minted", x.user, what, ev.Label["type"], ev.Label["mintAmount"], ev.Label["burnAmount"])
					}
				}
			}
		}
	})
}

// TestTokenStandardCLIWalletChoices: instructions sent with the CLI and
// ended in the wallet (bob accepts one on his page, alice withdraws
// another, bob rejects a third: no Ledger API command) read in the CLI's
// list-holding-txs --strict under their choices, as on Canton: the accept
// a TransferOut for alice and a TransferIn for bob, the withdraw and the
// reject her locked coin back unlocked.
func TestTokenStandardCLIWalletChoices(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e *env) {
		ctx := context.Background()
		cli := newTSCLI(t, e)
		dso := e.l.DSO()
		alice, bob := e.external("alice-cli", ""), e.external("bob-cli", "")
		disclose, round := e.rulesContext(alice.party)
		e.run(alice, "tap", e.tapCommand(alice.party, "100", round), disclose)
		instruction := func(amount string) coin.ContractID {
			t.Helper()
			before := map[string]bool{}
			for _, c := range e.acs(bob.user, filter(bob.party, interfaceFilter(instructionIface, true, false)), e.ledgerEnd()) {
				before[c.ContractID] = true
			}
			cli.transfer(alice, bob.party, amount, string(dso), "wallet", false)
			for _, c := range e.acs(bob.user, filter(bob.party, interfaceFilter(instructionIface, true, false)), e.ledgerEnd()) {
				if !before[c.ContractID] {
					return coin.ContractID(c.ContractID)
				}
			}
			t.Fatal("no new instruction")
			return ""
		}
		accepted, withdrawn, rejected := instruction("20"), instruction("5"), instruction("3")
		if _, err := e.l.Instructions().Accept(ctx, bob.party, accepted); err != nil {
			t.Fatal(err)
		}
		if _, err := e.l.Instructions().Withdraw(ctx, alice.party, withdrawn); err != nil {
			t.Fatal(err)
		}
		if _, err := e.l.Instructions().Reject(ctx, bob.party, rejected); err != nil {
			t.Fatal(err)
		}
		labels := func(x extParty) (out []string) {
			txs, _ := cli.holdingTxs(x, 0)
			for _, tx := range txs {
				for _, ev := range tx.Events {
					l := fmt.Sprint(ev.Label["type"], " ", ev.Label["tokenStandardChoice"])
					if r, ok := ev.Label["receiverAmounts"]; ok {
						l += fmt.Sprint(" ", r)
					}
					if s, ok := ev.Label["sender"]; ok {
						l += fmt.Sprint(" ", s)
					}
					out = append(out, l)
				}
			}
			return out
		}
		want := []string{"Mint ", "MergeSplit TransferFactory_Transfer", "MergeSplit TransferFactory_Transfer", "MergeSplit TransferFactory_Transfer",
			fmt.Sprint("TransferOut TransferInstruction_Accept ", map[string]string{string(bob.party): "20.0000000000"}),
			"MergeSplit TransferInstruction_Withdraw", "MergeSplit TransferInstruction_Reject"}
		if got := labels(alice); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("alice's labels\n%q\nwant\n%q", got, want)
		}
		if got, want := labels(bob), []string{fmt.Sprint("TransferIn TransferInstruction_Accept ", alice.party)}; fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("bob's labels %q, want %q", got, want)
		}
		if got := change(cli.holdings(alice), nil); got != "80.0000000000" {
			t.Errorf("alice holds %s, want 80", got)
		}
	})
}
