package api

import (
	"crypto/ed25519"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	ledgerdevnet "github.com/ccwallet/ccwallet/ledger/devnet"
	"github.com/ccwallet/ccwallet/ledger/fault"

	"github.com/ccwallet/ccwallet/web"
)

type advanceRoundsRequest struct {
	Rounds int    `json:"rounds"`
	Until  string `json:"until"`
}

type advanceRoundsResponse struct {
	From      int64   `json:"from_round"`
	To        int64   `json:"to_round"`
	Closed    []int64 `json:"closed_rounds"`
	Expired   int     `json:"expired_holdings"`
	Collected int     `json:"collected_coupons"`
}

// advanceRounds answers POST /v0/admin/devnet/advance-rounds {"rounds": N}
// or {"until": "RFC 3339 time"}: the development network's time control
// (devnet.Service.Advance: N rounds, or as many as the round clock would open
// until then). 501 outside devnet, 400 unless exactly one is given, with
// 1 <= N <= ledger/devnet's MaxAdvanceRounds (100,000) or until after the latest
// round's opening and at most as many rounds ahead.
func (h devnet) advanceRounds(w http.ResponseWriter, r *http.Request) error {
	if !h.l.DevNet() {
		return fault.ErrDisabled
	}
	var req advanceRoundsRequest
	if err := web.DecodeJSON(r, &req); err != nil {
		return err
	}
	rep, err := h.w.Devnet.Advance(r.Context(), ledgerdevnet.AdvanceRequest{Rounds: req.Rounds, Until: req.Until})
	if err != nil {
		return err
	}
	resp := advanceRoundsResponse{From: int64(rep.From), To: int64(rep.To), Closed: []int64{}, Expired: rep.Expired, Collected: rep.Collected}
	for _, c := range rep.Closed {
		resp.Closed = append(resp.Closed, int64(c))
	}
	return web.WriteJSON(w, http.StatusOK, resp)
}

// snapshotJSON is one development snapshot in the admin API.
type snapshotJSON struct {
	Name      string    `json:"name"`
	CreatedAt time.Time `json:"created_at"`
	Bytes     int64     `json:"bytes"`
}

type createSnapshotRequest struct {
	Name string `json:"name"`
}

// seededKeyJSON is an external party's key as the seed answers it: the
// caller needs it to act as the party, and the node keeps no copy.
type seededKeyJSON struct {
	PartyID    string `json:"party_id"`
	PublicKey  string `json:"public_key"`
	PrivateKey string `json:"private_key"` // hex of the 32-byte Ed25519 seed, as ccwallet external keygen writes it
}

// seedDevnet answers POST /v0/admin/devnet/seed with a scenario (YAML or
// JSON, at most ledgerdevnet.MaxScenarioBytes) as the body: 201 with each
// name's party and the external parties' new keys, or 400 naming the
// item that failed, with nothing of the scenario created.
func (h devnet) seedDevnet(w http.ResponseWriter, r *http.Request) error {
	if _, err := h.l.Dev(); err != nil {
		return err
	}
	b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, ledgerdevnet.MaxScenarioBytes))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return &web.RequestError{Status: http.StatusRequestEntityTooLarge, Msg: fmt.Sprintf("the scenario is larger than %d bytes", ledgerdevnet.MaxScenarioBytes)}
		}
		return err
	}
	sc, err := ledgerdevnet.ParseScenario(b)
	if err != nil {
		return err
	}
	start := time.Now()
	res, err := h.w.Devnet.Seed(r.Context(), sc, nil)
	if err != nil {
		return err
	}
	keys := map[string]seededKeyJSON{}
	for name, k := range res.Keys {
		keys[name] = seededKeyJSON{PartyID: string(res.Parties[name]), PublicKey: hex.EncodeToString(k.Public().(ed25519.PublicKey)),
			PrivateKey: hex.EncodeToString(k.Seed())}
	}
	w.Header().Set("Cache-Control", "no-store")
	return web.WriteJSON(w, http.StatusCreated, map[string]any{"parties": res.Parties, "keys": keys, "took_ms": time.Since(start).Milliseconds()})
}

// dumpDevnet answers GET /v0/admin/devnet/dump: the network's state as a
// scenario in YAML, which POST /v0/admin/devnet/seed (or serve --seed)
// loads on another development network.
func (h devnet) dumpDevnet(w http.ResponseWriter, r *http.Request) error {
	sc, err := h.w.Devnet.Dump(r.Context())
	if err != nil {
		return err
	}
	b, err := sc.Marshal()
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/yaml; charset=utf-8")
	_, err = w.Write(b)
	return err
}

// listSnapshots answers GET /v0/admin/devnet/snapshots.
func (h devnet) listSnapshots(w http.ResponseWriter, r *http.Request) error {
	if _, err := h.l.Dev(); err != nil {
		return err
	}
	all, err := h.w.Devnet.Snapshots(r.Context())
	if err != nil {
		return err
	}
	out := make([]snapshotJSON, 0, len(all))
	for _, s := range all {
		out = append(out, snapshotJSON(s))
	}
	return web.WriteJSON(w, http.StatusOK, map[string]any{"snapshots": out})
}

// createSnapshot answers POST /v0/admin/devnet/snapshots {"name": N}: 201
// with the snapshot, 400 for a bad name, 409 when N exists.
func (h devnet) createSnapshot(w http.ResponseWriter, r *http.Request) error {
	if _, err := h.l.Dev(); err != nil {
		return err
	}
	var req createSnapshotRequest
	if err := web.DecodeJSON(r, &req); err != nil {
		return err
	}
	s, err := h.w.Devnet.Snapshot(r.Context(), req.Name)
	if err != nil {
		return err
	}
	return web.WriteJSON(w, http.StatusCreated, snapshotJSON(s))
}

// deleteSnapshot answers DELETE /v0/admin/devnet/snapshots/{name}.
func (h devnet) deleteSnapshot(w http.ResponseWriter, r *http.Request) error {
	if _, err := h.l.Dev(); err != nil {
		return err
	}
	name := r.PathValue("name")
	if err := h.w.Devnet.DeleteSnapshot(r.Context(), name); err != nil {
		return err
	}
	return web.WriteJSON(w, http.StatusOK, map[string]string{"deleted": name})
}

// restoreSnapshot answers POST /v0/admin/devnet/snapshots/{name}/restore:
// the network as it was when the snapshot was taken. Other requests wait
// for nothing: those arriving meanwhile get 503 (restoreGate).
func (h devnet) restoreSnapshot(w http.ResponseWriter, r *http.Request) error {
	if _, err := h.l.Dev(); err != nil {
		return err
	}
	name := r.PathValue("name")
	start := time.Now()
	if err := h.w.Devnet.Restore(r.Context(), name); err != nil {
		return err
	}
	return web.WriteJSON(w, http.StatusOK, map[string]any{"restored": name, "took_ms": time.Since(start).Milliseconds()})
}

// resetDevnet answers POST /v0/admin/devnet/reset: a new network of the
// same identity; the snapshots stay.
func (h devnet) resetDevnet(w http.ResponseWriter, r *http.Request) error {
	if _, err := h.l.Dev(); err != nil {
		return err
	}
	start := time.Now()
	if err := h.w.Devnet.Reset(r.Context()); err != nil {
		return err
	}
	return web.WriteJSON(w, http.StatusOK, map[string]any{"reset": true, "took_ms": time.Since(start).Milliseconds()})
}
