package main

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/internal/jsonv1"
	"github.com/ccwallet/ccwallet/web"
	"github.com/coder/websocket"
	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// The wallet SDK's transfer as an exchange's code runs it for an external
// party (its prepareSignExecuteAndWaitFor), over HTTP from this process:
// the registry's transfer factory with its choice context, prepare of
// TransferFactory_Transfer on the JSON Ledger API, an Ed25519 signature
// of the prepared transaction's hash by the party's own key, execute,
// then the command's completion as the SDK 0.20.0 waits for it: the
// ledger end read before execute, then POST /v2/commands/completions
// from it (-completions ws: a WebSocket per transfer instead; poll: the
// POST every 2 ms).
//
//	loadgen sdksetup -state state.json -ledger-api URL
//	loadgen sdk -state state.json -ledger-api URL -clients 8 -duration 5s
//
// sdksetup onboards one external party per sender of setup's state (a
// key of its own, generate-topology and allocate as the SDK's
// signAndAllocateExternalParty, a user acting as it) and funds it by the
// faucet through prepare and execute (the SDK's createTap); the state
// gains them.

// External is an external party sdksetup made, with its user and key.
type External struct {
	User  string `json:"user"`
	Party string `json:"party"`
	Seed  string `json:"seed"` // the Ed25519 key's seed, hex
	Token string `json:"token"`
	Sync  string `json:"synchronizer"`
	// priv is the key, derived once from Seed when the state is read
	// (withKeys): deriving it takes as long as a signature; fp is its
	// public key's fingerprint, a hash, likewise.
	priv ed25519.PrivateKey
	fp   string
}

// key is x's signing key.
func (x External) key() ed25519.PrivateKey {
	if x.priv != nil {
		return x.priv
	}
	seed, _ := hex.DecodeString(x.Seed)
	return ed25519.NewKeyFromSeed(seed)
}

// fingerprint is x's public key's fingerprint, signedBy of its
// signatures.
func (x External) fingerprint() string {
	if x.fp != "" {
		return x.fp
	}
	return coin.Fingerprint(x.key().Public().(ed25519.PublicKey))
}

// withKeys derives each external party's key of st and its fingerprint
// once.
func withKeys(st *State) {
	for i := range st.External {
		st.External[i].priv = st.External[i].key()
		st.External[i].fp = st.External[i].fingerprint()
	}
}

// concatSig is a CONCAT Ed25519 signature of hash by key, in the JSON
// Ledger API's shape.
func concatSig(key ed25519.PrivateKey, hash []byte) jsontext.Value {
	return appendSig(nil, ed25519.Sign(key, hash), coin.Fingerprint(key.Public().(ed25519.PublicKey)))
}

// lapiCall is one JSON request to the Ledger API as user.
func lapiCall(c *http.Client, key ed25519.PrivateKey, base, user, path string, body, into any) error {
	tok, err := web.SignDevToken(key, devKeyID, devIssuer, audience, user, time.Hour)
	if err != nil {
		return err
	}
	bs, _ := marshal(body)
	req, _ := http.NewRequest(http.MethodPost, base+path, bytes.NewReader(bs))
	req.Header.Set("Authorization", "Bearer "+tok)
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	rb, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s as %s: %d %s", path, user, resp.StatusCode, rb)
	}
	if into != nil {
		return jsonv1.Unmarshal(rb, into)
	}
	return nil
}

// sdkSetup onboards and funds an external party per sender of st.
func sdkSetup(devKey ed25519.PrivateKey, st *State, lapi string) error {
	c := &http.Client{Timeout: time.Minute}
	// The synchronizer, AmuletRules and the open round, from what the
	// registry's transfer factory discloses (the SDK's createTap too).
	_, disclosed, _, err := factoryContext(c, st, st.DSO, st.Receivers[0], "1")
	if err != nil {
		return err
	}
	var ds []struct {
		TemplateID     string `json:"templateId"`
		ContractID     string `json:"contractId"`
		SynchronizerID string `json:"synchronizerId"`
	}
	if err := jsonv1.Unmarshal(disclosed, &ds); err != nil || len(ds) == 0 {
		return fmt.Errorf("the transfer factory discloses %s: %v", disclosed, err)
	}
	tc := tapContext{sync: ds[0].SynchronizerID, disclosed: disclosed}
	for _, d := range ds {
		switch d.TemplateID {
		case "#splice-amulet:Splice.AmuletRules:AmuletRules":
			tc.rules = d.ContractID
		case "#splice-amulet:Splice.Round:OpenMiningRound":
			tc.round = d.ContractID
		}
	}
	st.External = make([]External, len(st.Senders))
	errs := make(chan error, len(st.Senders))
	sem := make(chan struct{}, 8)
	var wg sync.WaitGroup
	for i := range st.Senders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			x, err := onboardExternal(c, devKey, lapi, tc, i)
			if err != nil {
				errs <- err
				return
			}
			st.External[i] = x
		}()
	}
	wg.Wait()
	close(errs)
	return <-errs
}

// tapContext is what a tap discloses and names.
type tapContext struct {
	sync, rules, round string
	disclosed          json.RawMessage
}

// onboardExternal makes external party i, its user, and taps it 100000.
func onboardExternal(c *http.Client, devKey ed25519.PrivateKey, lapi string, tc tapContext, i int) (External, error) {
	syncID := tc.sync
	seed := make([]byte, ed25519.SeedSize)
	rand.Read(seed)
	key := ed25519.NewKeyFromSeed(seed)
	pub := key.Public().(ed25519.PublicKey)
	var g struct {
		PartyID              string   `json:"partyId"`
		PublicKeyFingerprint string   `json:"publicKeyFingerprint"`
		TopologyTransactions []string `json:"topologyTransactions"`
		MultiHash            string   `json:"multiHash"`
	}
	hint := fmt.Sprintf("lg-ext-%04d-%x", i, seed[:4])
	if err := lapiCall(c, devKey, lapi, "admin", "/v2/parties/external/generate-topology", map[string]any{
		"synchronizer": syncID, "partyHint": hint,
		"publicKey":                       map[string]any{"format": "CRYPTO_KEY_FORMAT_RAW", "keyData": base64.StdEncoding.EncodeToString(pub), "keySpec": "SIGNING_KEY_SPEC_EC_CURVE25519"},
		"localParticipantObservationOnly": false, "confirmationThreshold": 1, "otherConfirmingParticipantUids": []string{}, "observingParticipantUids": []string{},
	}, &g); err != nil {
		return External{}, err
	}
	multi, err := base64.StdEncoding.DecodeString(g.MultiHash)
	if err != nil {
		return External{}, err
	}
	txs := []map[string]any{}
	for _, tx := range g.TopologyTransactions {
		txs = append(txs, map[string]any{"transaction": tx})
	}
	if err := lapiCall(c, devKey, lapi, "admin", "/v2/parties/external/allocate", map[string]any{"synchronizer": syncID, "identityProviderId": "",
		"onboardingTransactions": txs, "multiHashSignatures": []any{concatSig(key, multi)}}, nil); err != nil {
		return External{}, err
	}
	act := map[string]any{"kind": map[string]any{"CanActAs": map[string]any{"value": map[string]any{"party": g.PartyID}}}}
	if err := lapiCall(c, devKey, lapi, "admin", "/v2/users", map[string]any{
		"user": map[string]any{"id": hint, "primaryParty": g.PartyID, "isDeactivated": false, "identityProviderId": ""}, "rights": []any{act}}, nil); err != nil {
		return External{}, err
	}
	tok, err := web.SignDevToken(devKey, devKeyID, devIssuer, audience, hint, 4*time.Hour)
	if err != nil {
		return External{}, err
	}
	x := External{User: hint, Party: g.PartyID, Seed: hex.EncodeToString(seed), Token: tok, Sync: syncID}
	// The faucet through prepare and execute.
	tap, _ := marshal(map[string]any{"ExerciseCommand": map[string]any{"templateId": "#splice-amulet:Splice.AmuletRules:AmuletRules", "contractId": tc.rules,
		"choice": "AmuletRules_DevNet_Tap", "choiceArgument": map[string]any{"receiver": x.Party, "amount": "100000", "openRound": tc.round}}})
	return x, prepareExecute(c, nil, lapi, x, "tap-"+hint, tap, tc.disclosed, nil)
}

// factoryContext asks the registry for the transfer factory of a
// transfer of amount from sender to receiver: the choice context data,
// the disclosed contracts and the factory's id.
func factoryContext(c *http.Client, st *State, sender, receiver, amount string) (json.RawMessage, json.RawMessage, string, error) {
	body := factoryBody(st.DSO, appendTransfer(nil, st.DSO, sender, receiver, amount, time.Now()))
	resp, err := c.Post(st.App+"/registry/transfer-instruction/v1/transfer-factory", "application/json", bytes.NewReader(body))
	if err != nil {
		return nil, nil, "", err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return nil, nil, "", fmt.Errorf("transfer factory: %d %s", resp.StatusCode, b)
	}
	var f factoryAnswer
	if err := jsonv2.Unmarshal(b, &f); err != nil {
		return nil, nil, "", err
	}
	return json.RawMessage(f.ChoiceContext.ChoiceContextData), json.RawMessage(f.ChoiceContext.DisclosedContracts), f.FactoryID, nil
}

// prepareExecute prepares cmd as x, signs the hash with x's key and
// executes it, over cc's connection when given (else c); took, when not
// nil, gets how long the preparation with the signature and the
// execution took.
func prepareExecute(c *http.Client, cc *conn, lapi string, x External, commandID string, cmd, disclosed []byte, took func(prepare, execute time.Duration)) error {
	t0 := time.Now()
	post := func(path string, bs []byte) ([]byte, error) {
		if cc != nil {
			status, b, err := cc.post(path, x.Token, bs)
			if err == nil && status != http.StatusOK {
				err = fmt.Errorf("%s: %d %s", path, status, b)
			}
			return b, err
		}
		req, _ := http.NewRequest(http.MethodPost, lapi+path, bytes.NewReader(bs))
		req.Header.Set("Authorization", "Bearer "+x.Token)
		req.Header.Set("Content-Type", "application/json")
		resp, err := c.Do(req)
		if err != nil {
			return nil, err
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK {
			return nil, fmt.Errorf("%s: %d %s", path, resp.StatusCode, b)
		}
		return b, nil
	}
	if len(disclosed) == 0 {
		disclosed = []byte("[]")
	}
	b, err := post("/v2/interactive-submission/prepare", prepareBody(x, commandID, cmd, disclosed))
	if err != nil {
		return err
	}
	var p struct {
		PreparedTransaction     string `json:"preparedTransaction"`
		PreparedTransactionHash string `json:"preparedTransactionHash"`
	}
	if err := jsonv2.Unmarshal(b, &p); err != nil {
		return err
	}
	hash, err := base64.StdEncoding.DecodeString(p.PreparedTransactionHash)
	if err != nil {
		return err
	}
	t1 := time.Now()
	_, err = post("/v2/interactive-submission/execute", executeBody(x, commandID, p.PreparedTransaction, ed25519.Sign(x.key(), hash)))
	if err == nil && took != nil {
		took(t1.Sub(t0), time.Since(t1))
	}
	return err
}

// sdkSteps name the sdk mode's steps after the transfer factory, in
// Result.StepsMs.
var sdkSteps = [...]string{"prepare", "execute", "completion"}

// sdkTransfer is one SDK transfer from external party s to receiver r:
// factory, prepare, sign, execute, and its completion.
func (g *gen) sdkTransfer(cc *clientConns, s, r int) (err error) {
	if s >= len(g.st.External) {
		return fmt.Errorf("sender %d has no external party: run sdksetup first", s)
	}
	x := g.st.External[s]
	transfer := appendTransfer(nil, g.st.DSO, x.Party, g.st.Receivers[r], g.amount, time.Now())
	t0 := time.Now()
	status, b, err := cc.app.post("/registry/transfer-instruction/v1/transfer-factory", "", factoryBody(g.st.DSO, transfer))
	factory := time.Since(t0)
	if err == nil && status != http.StatusOK {
		err = fmt.Errorf("transfer factory: %d %s", status, b)
	}
	if err != nil {
		return err
	}
	var f factoryAnswer
	if err := jsonv2.Unmarshal(b, &f); err != nil {
		return err
	}
	id := fmt.Sprintf("%s-%d", g.prefix, g.seq.Add(1))
	cmd := transferCommand(g.st.DSO, f.FactoryID, transfer, f.ChoiceContext.ChoiceContextData)
	// The SDK reads the ledger end before it executes, and waits for the
	// completion after it (read here before prepare, which moves nothing).
	var end int64
	if g.completions == "sdk" {
		status, b, err := cc.lapi.get("/v2/state/ledger-end", x.Token)
		if err == nil && status != http.StatusOK {
			err = fmt.Errorf("ledger end: %d %s", status, b)
		}
		var e struct {
			Offset int64 `json:"offset"`
		}
		if err == nil {
			err = jsonv2.Unmarshal(b, &e)
		}
		if err != nil {
			return err
		}
		end = e.Offset
	}
	var prepare, execute time.Duration
	if err := prepareExecute(nil, &cc.lapi, g.lapi, x, id, cmd, f.ChoiceContext.DisclosedContracts, func(p, e time.Duration) { prepare, execute = p, e }); err != nil {
		return err
	}
	t2 := time.Now()
	defer func() {
		// Only a transfer that completed counts, as in MeanMs.
		if err == nil {
			g.factory.Add(int64(factory))
			g.factories.Add(1)
			for i, d := range [...]time.Duration{prepare, execute, time.Since(t2)} {
				g.steps[i].Add(int64(d))
			}
			g.stepsN.Add(1)
		}
	}()
	// The completion, read after the last one this sender saw.
	g.mu.Lock()
	after, ok := g.seen[s]
	if !ok {
		after = g.start
	}
	g.mu.Unlock()
	switch g.completions {
	case "ws":
		return g.completionWS(x, s, id, after)
	case "sdk":
		return g.completionSDK(cc, x, id, end)
	}
	// Completions are served up to the stable end, which a concurrent
	// commit at a lower offset may hold back a moment: read again until
	// the command's is there, as the SDK's completion stream waits.
	deadline := time.Now().Add(10 * time.Second)
	for {
		found, err := g.completionOf(cc, x, s, id, after)
		if err != nil || found {
			return err
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("no completion of %s after offset %d", id, after)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// completionWS waits for command id's completion on a WebSocket on
// /v2/commands/completions from offset after, as an app subscribed to
// completions reads them, until the command's completion comes, then
// closes it.
func (g *gen) completionWS(x External, s int, id string, after int64) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	u := "ws" + strings.TrimPrefix(g.lapi, "http") + "/v2/commands/completions"
	c, _, err := websocket.Dial(ctx, u, &websocket.DialOptions{HTTPHeader: http.Header{"Authorization": {"Bearer " + x.Token}}})
	if err != nil {
		return fmt.Errorf("completions stream: %w", err)
	}
	defer c.CloseNow()
	if err := c.Write(ctx, websocket.MessageText, completionsBody(x, after)); err != nil {
		return fmt.Errorf("completions stream: %w", err)
	}
	for {
		_, b, err := c.Read(ctx)
		if err != nil {
			return fmt.Errorf("no completion of %s after offset %d: %w", id, after, err)
		}
		var m completionMessage
		if err := jsonv2.Unmarshal(b, &m); err != nil {
			return err
		}
		if v := m.CompletionResponse.Completion; v != nil && v.Value.CommandID == id {
			g.mu.Lock()
			g.seen[s] = max(g.seen[s], v.Value.Offset)
			g.mu.Unlock()
			c.Close(websocket.StatusNormalClosure, "")
			if v.Value.Status.Code != 0 {
				return fmt.Errorf("completion of %s: %s", id, v.Value.Status.Message)
			}
			return nil
		}
	}
}

// completionSDK waits for command id's completion as the wallet SDK
// 0.20.0's waitForCompletion does (core-ledger-client's awaitCompletion):
// POST /v2/commands/completions from the ledger end read before execute,
// with limit 100 and stream_idle_timeout_ms 1000, again from the last
// completion answered until the command's is among them.
func (g *gen) completionSDK(cc *clientConns, x External, id string, after int64) error {
	deadline := time.Now().Add(10 * time.Second)
	for {
		cs, err := completionsPage(cc, x, after, "limit=100&stream_idle_timeout_ms=1000")
		if err != nil {
			return err
		}
		for _, c := range cs {
			v := c.CompletionResponse.Completion
			if v == nil {
				continue
			}
			if v.Value.CommandID == id {
				if v.Value.Status.Code != 0 {
					return fmt.Errorf("completion of %s: %s", id, v.Value.Status.Message)
				}
				return nil
			}
			after = v.Value.Offset
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("no completion of %s after offset %d", id, after)
		}
	}
}

// completionsPage is x's completions after offset after, by POST
// /v2/commands/completions with query.
func completionsPage(cc *clientConns, x External, after int64, query string) ([]completionMessage, error) {
	status, b, err := cc.lapi.post("/v2/commands/completions?"+query, x.Token, completionsBody(x, after))
	if err == nil && status != http.StatusOK {
		err = fmt.Errorf("completions: %d %s", status, b)
	}
	if err != nil {
		return nil, err
	}
	var cs []completionMessage
	return cs, jsonv2.Unmarshal(b, &cs)
}

// completionMessage is one message of the completions stream, an
// element of POST /v2/commands/completions' answer.
type completionMessage struct {
	CompletionResponse struct {
		Completion *struct {
			Value struct {
				CommandID string `json:"commandId"`
				Offset    int64  `json:"offset"`
				Status    struct {
					Code    int    `json:"code"`
					Message string `json:"message"`
				} `json:"status"`
			} `json:"value"`
		} `json:"Completion"`
	} `json:"completionResponse"`
}

// completionOf reads x's completions after offset after and reports
// whether command id's is among them, failing if it failed.
func (g *gen) completionOf(cc *clientConns, x External, s int, id string, after int64) (bool, error) {
	cs, err := completionsPage(cc, x, after, "limit=100&stream_idle_timeout_ms=0")
	if err != nil {
		return false, err
	}
	for _, c := range cs {
		if v := c.CompletionResponse.Completion; v != nil && v.Value.CommandID == id {
			g.mu.Lock()
			g.seen[s] = max(g.seen[s], v.Value.Offset)
			g.mu.Unlock()
			if v.Value.Status.Code != 0 {
				return true, fmt.Errorf("completion of %s: %s", id, v.Value.Status.Message)
			}
			return true, nil
		}
	}
	return false, nil
}

// ledgerEnd is the Ledger API's end now, read as st's first external
// party's user.
func ledgerEnd(lapi string, st State) (int64, error) {
	if len(st.External) == 0 {
		return 0, fmt.Errorf("no external party: run sdksetup first")
	}
	req, _ := http.NewRequest(http.MethodGet, lapi+"/v2/state/ledger-end", nil)
	req.Header.Set("Authorization", "Bearer "+st.External[0].Token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	var end struct {
		Offset int64 `json:"offset"`
	}
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		return 0, fmt.Errorf("ledger end: %d %s", resp.StatusCode, b)
	}
	err = json.NewDecoder(resp.Body).Decode(&end)
	return end.Offset, err
}
