// Command loadgen drives a running `ccwallet serve` over its JSON APIs
// from a process of its own, as a user's client would: `make bench`
// (bench/shipped_test.go) starts the shipped binary and runs this beside
// pgbench on the same Postgres cluster.
//
//	loadgen setup -app URL -parties N -out state.json
//	loadgen send -state state.json -clients 8 -duration 5s
//	loadgen ledgerapi -state state.json -ledger-api URL -clients 8 -duration 5s
//	loadgen sdksetup -state state.json -ledger-api URL
//	loadgen sdk -state state.json -ledger-api URL -clients 8 -duration 5s
//
// setup registers N senders (each tapping coin) and N receivers (each
// with a transfer preapproval) through the wallet API. send runs
// closed-loop clients of one-step 0.01 CC sends (POST
// /v0/wallet/transfer-preapproval/send); ledgerapi runs token-standard
// transfers (the registry's transfer factory, then submit-and-wait of
// TransferFactory_Transfer on the JSON Ledger API). Both print one JSON
// line: the accepted operations per second, p50 and p99 latency, the
// failures and the first error.
//
// Tokens are signed with the development network's published key (the
// serve under test runs network devnet), so no token travels between the
// processes.
package main

import (
	"bufio"
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"runtime"
	"runtime/pprof"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ccwallet/ccwallet/internal/jsonv1"
	"github.com/ccwallet/ccwallet/web"
	jsonv2 "github.com/go-json-experiment/json"
)

// The development network's signing key: public knowledge, derived as
// cmd/ccwallet/devkey.go derives it (`ccwallet token` signs with it).
const (
	devKeySeedText = "ccwallet development signing key - not secret"
	devKeyID       = "ccwallet-dev"
	devIssuer      = "ccwallet-dev"
	audience       = "https://canton.network.global"
)

// State is what setup made, for the runs.
type State struct {
	App       string   `json:"app"`
	Senders   []string `json:"senders"` // user names
	SenderIDs []string `json:"sender_ids"`
	Receivers []string `json:"receivers"` // party IDs
	DSO       string   `json:"dso"`
	// Tokens are the senders' bearer tokens, signed once at setup: a
	// client keeps its token across requests until it expires, so every
	// run after the first finds them in the wallet's cache of verified
	// tokens, as a real client's would.
	Tokens []string `json:"tokens"`
	// External are sdksetup's external parties, one per sender (sdk.go).
	External []External `json:"external,omitempty"`
}

// Result is one run's outcome, printed as one JSON line.
type Result struct {
	OK      int64   `json:"ok"`
	Failed  int64   `json:"failed"`
	Seconds float64 `json:"seconds"`
	Rate    float64 `json:"rate"`
	P50ms   float64 `json:"p50_ms"`
	P99ms   float64 `json:"p99_ms"`
	MeanMs  float64 `json:"mean_ms"`
	// FactoryMs is the mean of the transfer factory's call within MeanMs
	// (ledgerapi, sdk): the rest is the submission.
	FactoryMs float64 `json:"factory_ms,omitempty"`
	// StepsMs are the means of the sdk mode's other steps (sdkSteps:
	// prepare with the signature, execute, the completion's wait).
	StepsMs  map[string]float64 `json:"steps_ms,omitempty"`
	FirstErr string             `json:"first_error,omitempty"`
}

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: loadgen setup|send|ledgerapi|sdksetup|sdk [flags]")
		os.Exit(2)
	}
	fs := flag.NewFlagSet(os.Args[1], flag.ExitOnError)
	app := fs.String("app", "", "setup: the wallet's base URL")
	parties := fs.Int("parties", 128, "setup: senders (and as many receivers)")
	out := fs.String("out", "state.json", "setup: where to write the state")
	statePath := fs.String("state", "state.json", "send, ledgerapi: setup's state")
	lapi := fs.String("ledger-api", "", "ledgerapi: the JSON Ledger API's base URL")
	clients := fs.Int("clients", 8, "closed-loop clients")
	d := fs.Duration("duration", 5*time.Second, "how long the run lasts")
	amount := fs.String("amount", "0.01", "amount of each send, CC")
	prefix := fs.String("prefix", "lg", "deduplication and command id prefix (unique per run)")
	wait := fs.String("completions", "sdk", "sdk: how a transfer waits for its completion: sdk (as the wallet SDK 0.20.0's executeSubmissionAndWaitFor: the ledger end read before execute, then POST /v2/commands/completions from it with limit 100 and stream_idle_timeout_ms 1000 until the command's comes), ws (a WebSocket per transfer from the last completion seen, as an app that subscribes to completions) or poll (that POST every 2 ms, without the idle wait)")
	cpuProfile := fs.String("cpuprofile", "", "write the run's CPU profile here (bench/NOTES.md: the client's share of the machine)")
	_ = fs.Parse(os.Args[2:])
	if *wait != "ws" && *wait != "sdk" && *wait != "poll" {
		fmt.Fprintf(os.Stderr, "loadgen: -completions %q: want ws, sdk or poll\n", *wait)
		os.Exit(2)
	}
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "loadgen:", err)
			os.Exit(1)
		}
		defer pprof.StopCPUProfile()
	}

	// One processor: the clients are mostly waiting on the server, and
	// with two the runtime's idle processor spins looking for work on
	// the cores the server and Postgres need (alternated rows: 15-20%
	// less of this process's CPU per operation, the same p99). GOMAXPROCS
	// in the environment still decides.
	if os.Getenv("GOMAXPROCS") == "" {
		runtime.GOMAXPROCS(1)
	}
	seed := sha256.Sum256([]byte(devKeySeedText))
	key := ed25519.NewKeyFromSeed(seed[:])
	var err error
	switch os.Args[1] {
	case "setup":
		err = setup(key, *app, *parties, *out)
	case "send", "ledgerapi", "sdk", "sdksetup":
		var st State
		b, rerr := os.ReadFile(*statePath)
		if rerr == nil {
			rerr = jsonv1.Unmarshal(b, &st)
		}
		if rerr != nil {
			err = rerr
			break
		}
		if os.Args[1] == "sdksetup" {
			if err = sdkSetup(key, &st, *lapi); err == nil {
				b, _ := json.MarshalIndent(st, "", " ")
				err = os.WriteFile(*statePath, b, 0o644)
			}
			break
		}
		withKeys(&st)
		g := &gen{st: st, tokens: st.Tokens, amount: *amount, prefix: *prefix, lapi: *lapi, seen: map[int]int64{}, completions: *wait}
		var r Result
		switch os.Args[1] {
		case "send":
			r = g.run(*clients, *d, g.send)
		case "sdk":
			if g.start, err = ledgerEnd(*lapi, st); err != nil {
				break
			}
			r = g.run(*clients, *d, g.sdkTransfer)
		default:
			r = g.run(*clients, *d, g.tokenTransfer)
		}
		err = json.NewEncoder(os.Stdout).Encode(r)
	default:
		err = fmt.Errorf("unknown command %q", os.Args[1])
	}
	if err != nil {
		pprof.StopCPUProfile()
		fmt.Fprintln(os.Stderr, "loadgen:", err)
		os.Exit(1)
	}
}

// setup registers the parties through the wallet API, concurrently.
func setup(key ed25519.PrivateKey, app string, n int, out string) error {
	st := State{App: app, Senders: make([]string, n), SenderIDs: make([]string, n), Receivers: make([]string, n)}
	c := &http.Client{Timeout: time.Minute}
	call := func(user, method, path string, body any, into any) error {
		tok, err := web.SignDevToken(key, devKeyID, devIssuer, audience, user, time.Hour)
		if err != nil {
			return err
		}
		var rd io.Reader
		if body != nil {
			bs, _ := marshal(body)
			rd = bytes.NewReader(bs)
		}
		req, _ := http.NewRequest(method, app+path, rd)
		req.Header.Set("Authorization", "Bearer "+tok)
		req.Header.Set("Content-Type", "application/json")
		resp, err := c.Do(req)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		rb, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("%s %s as %s: %d %s", method, path, user, resp.StatusCode, rb)
		}
		if into != nil {
			return jsonv1.Unmarshal(rb, into)
		}
		return nil
	}
	var reg struct {
		PartyID string `json:"party_id"`
	}
	// The validator operator (user admin) pays the receivers'
	// preapproval fees.
	for k := range 3 {
		if err := call("admin", "POST", "/v0/wallet/tap", map[string]any{"amount": "10000000", "command_id": fmt.Sprintf("setup-admin-%d", k)}, nil); err != nil {
			return err
		}
	}
	errs := make(chan error, 2*n)
	sem := make(chan struct{}, 8)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			s, r := fmt.Sprintf("lg-sender-%04d", i), fmt.Sprintf("lg-receiver-%04d", i)
			var sreg, rreg = reg, reg
			if err := call(s, "POST", "/v0/register", map[string]any{}, &sreg); err != nil {
				errs <- err
				return
			}
			// Three holdings, as a wallet might have.
			for k := range 3 {
				if err := call(s, "POST", "/v0/wallet/tap", map[string]any{"amount": "100000", "command_id": fmt.Sprintf("setup-%d", k)}, nil); err != nil {
					errs <- err
					return
				}
			}
			if err := call(r, "POST", "/v0/register", map[string]any{}, &rreg); err != nil {
				errs <- err
				return
			}
			if err := call(r, "POST", "/v0/wallet/tap", map[string]any{"amount": "10"}, nil); err != nil {
				errs <- err
				return
			}
			if err := call(r, "POST", "/v0/wallet/transfer-preapproval", map[string]any{}, nil); err != nil {
				errs <- err
				return
			}
			st.Senders[i], st.SenderIDs[i], st.Receivers[i] = s, sreg.PartyID, rreg.PartyID
		}()
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return err
	}
	// The DSO party, the token standard's instrument admin.
	var meta struct {
		AdminID string `json:"adminId"`
	}
	if err := call(st.Senders[0], "GET", "/registry/metadata/v1/info", nil, &meta); err != nil {
		return err
	}
	st.DSO = meta.AdminID
	for _, u := range st.Senders {
		tok, err := web.SignDevToken(key, devKeyID, devIssuer, audience, u, 4*time.Hour)
		if err != nil {
			return err
		}
		st.Tokens = append(st.Tokens, tok)
	}
	b, err := json.MarshalIndent(st, "", " ")
	if err != nil {
		return err
	}
	return os.WriteFile(out, b, 0o644)
}

type gen struct {
	st     State
	tokens []string
	amount string
	prefix string
	lapi   string
	seq    atomic.Int64
	failed atomic.Int64
	// factory sums the transfer factory calls' time and counts them.
	factory, factories atomic.Int64
	// steps sums the sdk mode's steps after the factory (sdkSteps), in
	// nanoseconds, over stepsN transfers.
	steps  [len(sdkSteps)]atomic.Int64
	stepsN atomic.Int64

	mu    sync.Mutex
	first string
	// seen is the last completion offset each sender's client read, start
	// the ledger end when the run began (sdk).
	seen  map[int]int64
	start int64
	// completions is how sdk's transfers wait for their completion: ws,
	// sdk or poll (the -completions flag).
	completions string
}

func (g *gen) fail(err error) {
	g.failed.Add(1)
	g.mu.Lock()
	if g.first == "" {
		g.first = err.Error()
	}
	g.mu.Unlock()
}

// conn is one client's keep-alive connection. It writes each request
// itself and reads the answer with net/http's response parser, as wrk
// does: http.Client's transport would add two goroutines and a pool per
// connection, CPU this process would take from the server's cores.
type conn struct {
	addr string
	c    net.Conn
	br   *bufio.Reader
	buf  []byte
}

func (c *conn) close() {
	if c.c != nil {
		c.c.Close()
		c.c = nil
	}
}

// post sends body to path with token and returns the status and answer.
func (c *conn) post(path, token string, body []byte) (int, []byte, error) {
	return c.do(http.MethodPost, path, token, body)
}

// get fetches path with token.
func (c *conn) get(path, token string) (int, []byte, error) {
	return c.do(http.MethodGet, path, token, nil)
}

func (c *conn) do(method, path, token string, body []byte) (int, []byte, error) {
	if c.c == nil {
		nc, err := net.Dial("tcp", c.addr)
		if err != nil {
			return 0, nil, err
		}
		c.c, c.br = nc, bufio.NewReaderSize(nc, 16<<10)
	}
	// The headers http.Client sends, so the server's work is the same.
	c.buf = fmt.Appendf(c.buf[:0], "%s %s HTTP/1.1\r\nHost: %s\r\nUser-Agent: Go-http-client/1.1\r\nAccept-Encoding: gzip\r\n", method, path, c.addr)
	if token != "" {
		c.buf = fmt.Appendf(c.buf, "Authorization: Bearer %s\r\n", token)
	}
	if method == http.MethodGet {
		c.buf = append(c.buf, "\r\n"...)
	} else {
		c.buf = fmt.Appendf(c.buf, "Content-Type: application/json\r\nContent-Length: %d\r\n\r\n", len(body))
		c.buf = append(c.buf, body...)
	}
	if _, err := c.c.Write(c.buf); err != nil {
		c.close()
		return 0, nil, err
	}
	resp, err := http.ReadResponse(c.br, nil)
	if err != nil {
		c.close()
		return 0, nil, err
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || resp.Close {
		c.close()
	}
	return resp.StatusCode, b, err
}

// clientConns are one client's connections: the wallet's and the Ledger
// API's.
type clientConns struct{ app, lapi conn }

func hostOf(base string) string {
	u, err := url.Parse(base)
	if err != nil {
		return base
	}
	return u.Host
}

// send makes one one-step send from sender s to receiver r.
func (g *gen) send(cc *clientConns, s, r int) error {
	body := fmt.Appendf(nil, `{"receiver_party_id":%q,"amount":%q,"deduplication_id":"%s-%d"}`, g.st.Receivers[r], g.amount, g.prefix, g.seq.Add(1))
	status, b, err := cc.app.post("/v0/wallet/transfer-preapproval/send", g.tokens[s], body)
	if err == nil && status != http.StatusOK {
		err = fmt.Errorf("send: %d %s", status, b)
	}
	return err
}

const factoryInterface = "#splice-api-token-transfer-instruction-v1:Splice.Api.Token.TransferInstructionV1:TransferFactory"

// tokenTransfer makes one token-standard transfer as an app written for
// Canton makes it: the registry's transfer factory with its choice
// context, then submit-and-wait of TransferFactory_Transfer with the
// disclosed contracts (transferKind "direct" to a preapproved receiver).
func (g *gen) tokenTransfer(cc *clientConns, s, r int) error {
	transfer := appendTransfer(nil, g.st.DSO, g.st.SenderIDs[s], g.st.Receivers[r], g.amount, time.Now())
	t0 := time.Now()
	status, b, err := cc.app.post("/registry/transfer-instruction/v1/transfer-factory", "", factoryBody(g.st.DSO, transfer))
	g.factory.Add(int64(time.Since(t0)))
	g.factories.Add(1)
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
	cmd := transferCommand(g.st.DSO, f.FactoryID, transfer, f.ChoiceContext.ChoiceContextData)
	body := submitBody(cmd, fmt.Sprintf("%s-%d", g.prefix, g.seq.Add(1)), g.st.SenderIDs[s], f.ChoiceContext.DisclosedContracts)
	status, b, err = cc.lapi.post("/v2/commands/submit-and-wait", g.tokens[s], body)
	if err == nil && status != http.StatusOK {
		err = fmt.Errorf("submit-and-wait: %d %s", status, b)
	}
	return err
}

// run runs clients in a closed loop for d, each from its own senders
// (a wallet's users act for themselves) to any receiver, and returns
// the accepted operations per second and their latencies.
func (g *gen) run(clients int, d time.Duration, op func(cc *clientConns, s, r int) error) Result {
	n := len(g.st.Senders)
	if clients > n {
		clients = n
	}
	var ok atomic.Int64
	lats := make([][]time.Duration, clients)
	var wg sync.WaitGroup
	t0 := time.Now()
	deadline := t0.Add(d)
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cc := &clientConns{app: conn{addr: hostOf(g.st.App)}, lapi: conn{addr: hostOf(g.lapi)}}
			defer cc.app.close()
			defer cc.lapi.close()
			mine := n / clients
			for i := 0; ; i++ {
				start := time.Now()
				if !start.Before(deadline) {
					break
				}
				s := c + clients*(i%mine)
				r := (s*7919 + i) % n
				if err := op(cc, s, r); err != nil {
					g.fail(err)
					continue
				}
				ok.Add(1)
				lats[c] = append(lats[c], time.Since(start))
			}
		}()
	}
	wg.Wait()
	took := time.Since(t0)
	all := slices.Concat(lats...)
	slices.Sort(all)
	q := func(p float64) float64 {
		if len(all) == 0 {
			return 0
		}
		return float64(all[min(int(p*float64(len(all))), len(all)-1)]) / 1e6
	}
	var sum time.Duration
	for _, l := range all {
		sum += l
	}
	r := Result{OK: ok.Load(), Failed: g.failed.Load(), Seconds: took.Seconds(), Rate: float64(ok.Load()) / took.Seconds(), P50ms: q(0.5), P99ms: q(0.99),
		MeanMs: float64(sum) / 1e6 / float64(max(1, len(all)))}
	if n := g.factories.Load(); n > 0 {
		r.FactoryMs = float64(g.factory.Load()) / 1e6 / float64(n)
	}
	if n := g.stepsN.Load(); n > 0 {
		r.StepsMs = map[string]float64{}
		for i, name := range sdkSteps {
			r.StepsMs[name] = float64(g.steps[i].Load()) / 1e6 / float64(n)
		}
	}
	g.mu.Lock()
	r.FirstErr = g.first
	g.mu.Unlock()
	return r
}

// marshal encodes a request body by the JSON v2 implementation, as a
// client library would without encoding/json's sorting of map keys and
// its compaction, again, of the raw parts a body carries (the registry's
// choice context and disclosed contracts): with encoding/json (and its
// Unmarshal) they were half this process's CPU per Ledger API transfer,
// taken from the cores the server shares with it (bench/NOTES.md).
func marshal(v any) ([]byte, error) {
	return jsonv2.Marshal(v)
}
