package main

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger/external"
	"github.com/ccwallet/ccwallet/web"
)

const externalUsage = `ccwallet external: a client for external parties, whose keys stay here.

Usage:
  ccwallet external keygen [--out FILE]
      generate an Ed25519 key pair; print the hex public key (and the hex
      private key seed unless --out writes it to a key file, mode 0600)
  ccwallet external sign --key FILE --hash HEX
      print the hex Ed25519 signature of a topology hash or a tx_hash
  ccwallet external onboard --server URL --token T --hint H --key FILE
      create the external party: topology generate, sign, submit
  ccwallet external transfer --server URL --token T --key FILE --party P --to R --amount A
      prepare, sign and submit a one-step transfer from the external party P
  ccwallet external propose-delegation --server URL --token T --key FILE --party P [--merge-limit N] [--expires 720h]
      propose that the validator mint P's rewards (a MintingDelegationProposal)
  ccwallet external setup-preapproval --server URL --token T --key FILE --party P
      give P a transfer preapproval provided by the validator: create (or
      reuse) the setup proposal, prepare its acceptance, sign, submit
  ccwallet external send --server URL --token T --key FILE --party P --to R --amount A [--expires 1h]
      send through R's transfer preapproval: read P's next nonce, prepare,
      sign, submit
  ccwallet external tap --server URL --token T --party P --amount USD
      development networks only: the faucet for any party (amount in USD)

--token defaults to $CCWALLET_TOKEN (an admin user's JWT, e.g. from "ccwallet token").
Over https, --cacert names the CAs that verify the server, and --cert and
--cert-key the client certificate (PKCS#8 key) a server with client-auth
require wants; --config takes them from the values file's
tls.client-auth.admin-client instead.
`

// externalCmd runs "ccwallet external ...".
func externalCmd(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, externalUsage)
		return errors.New("external: a subcommand is required")
	}
	sub, args := args[0], args[1:]
	fs := flag.NewFlagSet("external "+sub, flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("out", "", "keygen: key file to write")
	keyFile := fs.String("key", "", "key file (from keygen), or a file with the hex private key")
	hash := fs.String("hash", "", "sign: hex hash to sign")
	server := fs.String("server", "http://localhost:8080", "wallet base URL")
	tok := fs.String("token", getenv("CCWALLET_TOKEN"), "admin bearer token")
	hint := fs.String("hint", "", "onboard: party hint")
	party := fs.String("party", "", "the external party ID")
	to := fs.String("to", "", "transfer, send: receiver party ID")
	amount := fs.String("amount", "", "transfer, send: amount of coin, e.g. 10.5; tap: amount in USD")
	description := fs.String("description", "", "transfer, send: description")
	mergeLimit := fs.Int("merge-limit", 10, "propose-delegation: holdings to keep after merging")
	expires := fs.Duration("expires", 30*24*time.Hour, "propose-delegation: lifetime of the delegation; send: when the transfer expires (default 1h)")
	caFile := fs.String("cacert", "", "https: CA certificates (PEM) that verify the server, instead of the system's")
	certFile := fs.String("cert", "", "https: client certificate chain (PEM) for a server with client-auth require")
	certKey := fs.String("cert-key", "", "https: the client certificate's PKCS#8 PEM private key")
	values := fs.String("config", "", "values file: --cert and --cert-key default to its tls.client-auth.admin-client")
	if err := fs.Parse(args); err != nil {
		return err
	}
	httpc, err := externalHTTP(*values, *caFile, *certFile, *certKey)
	if err != nil {
		return err
	}
	expiresSet := false
	fs.Visit(func(f *flag.Flag) { expiresSet = expiresSet || f.Name == "expires" })
	c := &extClient{ctx: ctx, server: strings.TrimRight(*server, "/"), token: *tok, http: httpc}
	switch sub {
	case "keygen":
		return keygen(*out, stdout)
	case "sign":
		key, err := readKey(*keyFile)
		if err != nil {
			return err
		}
		sig, err := external.SignHash(key, *hash)
		if err != nil {
			return err
		}
		fmt.Fprintln(stdout, sig)
		return nil
	case "onboard":
		key, err := readKey(*keyFile)
		if err != nil {
			return err
		}
		p, err := c.onboard(*hint, key)
		if err != nil {
			return err
		}
		fmt.Fprintln(stdout, p)
		return nil
	case "transfer":
		return c.prepareSignSubmit(stdout, *keyFile, *party, "/v0/admin/external-party/transfer/prepare", "/v0/admin/external-party/submit", map[string]any{
			"sender_party_id": *party, "receiver_party_id": *to, "amount": *amount, "description": *description})
	case "propose-delegation":
		return c.prepareSignSubmit(stdout, *keyFile, *party, "/v0/admin/external-party/minting-delegation-proposal/prepare", "/v0/admin/external-party/submit", map[string]any{
			"beneficiary_party_id": *party, "merge_limit": *mergeLimit, "expires_at": time.Now().Add(*expires).UTC().Format(time.RFC3339)})
	case "setup-preapproval":
		cid, err := c.setupProposal(*party)
		if err != nil {
			return err
		}
		return c.prepareSignSubmit(stdout, *keyFile, *party, "/v0/admin/external-party/setup-proposal/prepare-accept", "/v0/admin/external-party/setup-proposal/submit-accept",
			map[string]any{"contract_id": cid, "user_party_id": *party})
	case "send":
		if _, err := coin.ParseAmount(*amount); err != nil {
			return fmt.Errorf("--amount: %w", err)
		}
		nonce, err := c.nextNonce(*party)
		if err != nil {
			return err
		}
		exp := time.Hour
		if expiresSet {
			exp = *expires
		}
		// The spec's amount is a JSON number: json.Number sends its text as is.
		return c.prepareSignSubmit(stdout, *keyFile, *party, "/v0/admin/external-party/transfer-preapproval/prepare-send", "/v0/admin/external-party/transfer-preapproval/submit-send",
			map[string]any{"sender_party_id": *party, "receiver_party_id": *to, "amount": json.Number(*amount),
				"expires_at": time.Now().Add(exp).UTC().Format(time.RFC3339), "nonce": nonce, "description": *description})
	case "tap":
		var res struct {
			ContractID string `json:"contract_id"`
			Amount     string `json:"amount"`
		}
		if err := c.post("/v0/admin/devnet/tap", map[string]any{"party_id": *party, "amount": *amount}, &res); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "contract_id %s\namount %s\n", res.ContractID, res.Amount)
		return nil
	case "help", "-h", "--help":
		fmt.Fprint(stdout, externalUsage)
		return nil
	}
	fmt.Fprint(stderr, externalUsage)
	return fmt.Errorf("external: unknown subcommand %q", sub)
}

// keyFile is the JSON key file keygen writes.
type keyFile struct {
	PublicKey  string `json:"public_key"`
	PrivateKey string `json:"private_key"` // hex of the 32-byte seed
}

func keygen(out string, stdout io.Writer) error {
	pub, key, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return err
	}
	kf := keyFile{PublicKey: hex.EncodeToString(pub), PrivateKey: hex.EncodeToString(key.Seed())}
	if out == "" {
		fmt.Fprintf(stdout, "public_key %s\nprivate_key %s\n", kf.PublicKey, kf.PrivateKey)
		return nil
	}
	if err := writeKeyFile(out, key); err != nil {
		return fmt.Errorf("keygen: %w", err)
	}
	fmt.Fprintf(stdout, "public_key %s\n", kf.PublicKey)
	return nil
}

// writeKeyFile writes key to a new key file (keygen's JSON), mode 0600;
// an existing file is an error, never overwritten.
func writeKeyFile(out string, key ed25519.PrivateKey) error {
	kf := keyFile{PublicKey: hex.EncodeToString(key.Public().(ed25519.PublicKey)), PrivateKey: hex.EncodeToString(key.Seed())}
	b, _ := json.MarshalIndent(kf, "", "  ")
	f, err := os.OpenFile(out, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.Write(append(b, '\n')); err != nil {
		f.Close()
		os.Remove(out)
		return err
	}
	return f.Close()
}

// readKey reads a key file: keygen's JSON, or hex of a 32-byte seed or a
// 64-byte Ed25519 private key.
func readKey(path string) (ed25519.PrivateKey, error) {
	if path == "" {
		return nil, errors.New("--key is required")
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	text := strings.TrimSpace(string(b))
	if strings.HasPrefix(text, "{") {
		var kf keyFile
		if err := json.Unmarshal(b, &kf); err != nil {
			return nil, fmt.Errorf("key file %s: %w", path, err)
		}
		text = kf.PrivateKey
	}
	raw, err := hex.DecodeString(text)
	if err != nil {
		return nil, fmt.Errorf("key file %s: private key must be hex: %w", path, err)
	}
	switch len(raw) {
	case ed25519.SeedSize:
		return ed25519.NewKeyFromSeed(raw), nil
	case ed25519.PrivateKeySize:
		return ed25519.PrivateKey(raw), nil
	}
	return nil, fmt.Errorf("key file %s: want a 32-byte Ed25519 seed or 64-byte private key, got %d bytes", path, len(raw))
}

// extClient calls the wallet's admin API.
type extClient struct {
	ctx    context.Context
	server string
	token  string
	http   *http.Client
}

// externalHTTP is the client's HTTP client: for an https server, caFile
// verifies it and the client certificate (the flags, else the values
// file's admin-client) answers client-auth require.
func externalHTTP(values, caFile, certFile, keyFile string) (*http.Client, error) {
	if (certFile == "") != (keyFile == "") {
		return nil, errors.New("--cert and --cert-key go together (the client certificate and its PKCS#8 key)")
	}
	if certFile == "" && values != "" {
		cfg, err := readConfig(values, nil)
		if err != nil {
			return nil, err
		}
		if a := cfg.TLS.adminClient(); a != nil {
			certFile, keyFile = a.CertChainFile, a.PrivateKeyFile
		}
	}
	var cert *web.ClientCert
	if certFile != "" {
		cert = &web.ClientCert{CertChainFile: certFile, PrivateKeyFile: keyFile}
	}
	tlsCfg, err := web.ClientTLS(caFile, cert)
	if err != nil {
		return nil, err
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.TLSClientConfig = tlsCfg
	return &http.Client{Transport: tr}, nil
}

func (c *extClient) post(path string, body, out any) error {
	_, err := c.do(http.MethodPost, path, body, out)
	return err
}

// do sends a request (body nil: none) and decodes a 200 answer into out;
// any other status is an error, returned with the status.
func (c *extClient) do(method, path string, body, out any) (int, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return 0, err
		}
		rd = bytes.NewReader(b)
	}
	ctx, cancel := context.WithTimeout(c.ctx, 60*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, c.server+path, rd)
	if err != nil {
		return 0, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return resp.StatusCode, err
	}
	if resp.StatusCode != http.StatusOK {
		var e struct {
			Error string `json:"error"`
		}
		_ = json.Unmarshal(data, &e)
		if e.Error == "" {
			e.Error = strings.TrimSpace(string(data))
		}
		return resp.StatusCode, fmt.Errorf("%s %s: %s: %s", method, path, resp.Status, e.Error)
	}
	if err := json.Unmarshal(data, out); err != nil {
		return resp.StatusCode, fmt.Errorf("%s %s: decode answer: %w", method, path, err)
	}
	return resp.StatusCode, nil
}

// setupProposal creates party's setup proposal, or finds the pending one
// (a retry after a failed acceptance), and returns its contract ID.
func (c *extClient) setupProposal(party string) (string, error) {
	if party == "" {
		return "", errors.New("--party is required")
	}
	var created struct {
		ContractID string `json:"contract_id"`
	}
	status, err := c.do(http.MethodPost, "/v0/admin/external-party/setup-proposal", map[string]string{"user_party_id": party}, &created)
	if err == nil {
		return created.ContractID, nil
	}
	if status != http.StatusConflict {
		return "", err
	}
	var list struct {
		Contracts []struct {
			Contract struct {
				ContractID string `json:"contract_id"`
				Payload    struct {
					User string `json:"user"`
				} `json:"payload"`
			} `json:"contract"`
		} `json:"contracts"`
	}
	if _, lerr := c.do(http.MethodGet, "/v0/admin/external-party/setup-proposal", nil, &list); lerr != nil {
		return "", lerr
	}
	for _, p := range list.Contracts {
		if p.Contract.Payload.User == party {
			return p.Contract.ContractID, nil
		}
	}
	return "", err // a preapproval exists already
}

// nextNonce reads party's TransferCommandCounter as scan serves it; none
// (404) means nonce 0.
func (c *extClient) nextNonce(party string) (int64, error) {
	if party == "" {
		return 0, errors.New("--party is required")
	}
	var res struct {
		TransferCommandCounter struct {
			Contract struct {
				Payload struct {
					NextNonce string `json:"nextNonce"`
				} `json:"payload"`
			} `json:"contract"`
		} `json:"transfer_command_counter"`
	}
	status, err := c.do(http.MethodGet, "/v0/transfer-command-counter/"+url.PathEscape(party), nil, &res)
	if status == http.StatusNotFound {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	return strconv.ParseInt(res.TransferCommandCounter.Contract.Payload.NextNonce, 10, 64)
}

func (c *extClient) onboard(hint string, key ed25519.PrivateKey) (string, error) {
	if hint == "" {
		return "", errors.New("--hint is required")
	}
	pub := hex.EncodeToString(key.Public().(ed25519.PublicKey))
	var gen struct {
		PartyID     string `json:"party_id"`
		TopologyTxs []struct {
			TopologyTx string `json:"topology_tx"`
			Hash       string `json:"hash"`
		} `json:"topology_txs"`
	}
	if err := c.post("/v0/admin/external-party/topology/generate", map[string]string{"party_hint": hint, "public_key": pub}, &gen); err != nil {
		return "", err
	}
	signed := make([]map[string]string, 0, len(gen.TopologyTxs))
	for _, tx := range gen.TopologyTxs {
		sig, err := external.SignHash(key, tx.Hash)
		if err != nil {
			return "", err
		}
		signed = append(signed, map[string]string{"topology_tx": tx.TopologyTx, "signed_hash": sig})
	}
	var sub struct {
		PartyID string `json:"party_id"`
	}
	if err := c.post("/v0/admin/external-party/topology/submit", map[string]any{"public_key": pub, "signed_topology_txs": signed}, &sub); err != nil {
		return "", err
	}
	return sub.PartyID, nil
}

// prepareSignSubmit prepares a transaction, checks the hash it is given
// against the transaction itself, signs it and submits it.
func (c *extClient) prepareSignSubmit(stdout io.Writer, keyPath, party, preparePath, submitPath string, body map[string]any) error {
	key, err := readKey(keyPath)
	if err != nil {
		return err
	}
	if party == "" {
		return errors.New("--party is required")
	}
	var p struct {
		Transaction string `json:"transaction"`
		TxHash      string `json:"tx_hash"`
	}
	if err := c.post(preparePath, body, &p); err != nil {
		return err
	}
	raw, _, err := external.DecodePrepared(p.Transaction)
	if err != nil {
		return err
	}
	if got := hex.EncodeToString(external.PreparedTxHash(raw)); got != p.TxHash {
		return fmt.Errorf("the server's tx_hash %s does not match the transaction (hash %s); not signing", p.TxHash, got)
	}
	sig, err := external.SignHash(key, p.TxHash)
	if err != nil {
		return err
	}
	var res struct {
		UpdateID      string `json:"update_id"`
		ContractID    string `json:"contract_id"`
		PreapprovalID string `json:"transfer_preapproval_contract_id"`
	}
	err = c.post(submitPath, map[string]any{"submission": map[string]string{
		"party_id": party, "transaction": p.Transaction, "signed_tx_hash": sig,
		"public_key": hex.EncodeToString(key.Public().(ed25519.PublicKey)),
	}}, &res)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "update_id %s\n", res.UpdateID)
	if res.ContractID != "" {
		fmt.Fprintf(stdout, "contract_id %s\n", res.ContractID)
	}
	if res.PreapprovalID != "" {
		fmt.Fprintf(stdout, "transfer_preapproval_contract_id %s\n", res.PreapprovalID)
	}
	return nil
}
