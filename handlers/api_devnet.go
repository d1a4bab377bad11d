package handlers

import (
	"net/http"
	"strings"
	"time"

	"github.com/ccwallet/ccwallet/ledger"
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
// (ledger.Advance: N rounds, or as many as the round clock would open
// until then). 501 outside devnet, 400 unless exactly one is given, with
// 1 <= N <= ledger.MaxAdvanceRounds (100,000) or until after the latest
// round's opening and at most as many rounds ahead.
func (h *Handler) advanceRounds(w http.ResponseWriter, r *http.Request) error {
	if !h.l.DevNet() {
		return ledger.ErrDisabled
	}
	var req advanceRoundsRequest
	if err := web.DecodeJSON(r, &req); err != nil {
		return err
	}
	rep, err := h.l.Advance(r.Context(), ledger.AdvanceRequest{Rounds: req.Rounds, Until: req.Until})
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

// devnetSnapshotRoutes registers the development network's snapshot,
// restore and reset endpoints. A production network never has them (404),
// and the ledger refuses them there anyway (Ledger.Dev).
func (h *Handler) devnetSnapshotRoutes(mux *http.ServeMux) {
	if !h.l.DevNet() {
		return
	}
	mux.Handle("GET /v0/admin/devnet/snapshots", h.admin(h.listSnapshots))
	mux.Handle("POST /v0/admin/devnet/snapshots", h.admin(h.createSnapshot))
	mux.Handle("DELETE /v0/admin/devnet/snapshots/{name}", h.admin(h.deleteSnapshot))
	mux.Handle("POST /v0/admin/devnet/snapshots/{name}/restore", h.admin(h.restoreSnapshot))
	mux.Handle("POST /v0/admin/devnet/reset", h.admin(h.resetDevnet))
}

// listSnapshots answers GET /v0/admin/devnet/snapshots.
func (h *Handler) listSnapshots(w http.ResponseWriter, r *http.Request) error {
	dev, err := h.l.Dev()
	if err != nil {
		return err
	}
	all, err := dev.Snapshots(r.Context())
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
func (h *Handler) createSnapshot(w http.ResponseWriter, r *http.Request) error {
	dev, err := h.l.Dev()
	if err != nil {
		return err
	}
	var req createSnapshotRequest
	if err := web.DecodeJSON(r, &req); err != nil {
		return err
	}
	s, err := dev.Snapshot(r.Context(), req.Name)
	if err != nil {
		return err
	}
	return web.WriteJSON(w, http.StatusCreated, snapshotJSON(s))
}

// deleteSnapshot answers DELETE /v0/admin/devnet/snapshots/{name}.
func (h *Handler) deleteSnapshot(w http.ResponseWriter, r *http.Request) error {
	dev, err := h.l.Dev()
	if err != nil {
		return err
	}
	name := r.PathValue("name")
	if err := dev.DeleteSnapshot(r.Context(), name); err != nil {
		return err
	}
	return web.WriteJSON(w, http.StatusOK, map[string]string{"deleted": name})
}

// restoreSnapshot answers POST /v0/admin/devnet/snapshots/{name}/restore:
// the network as it was when the snapshot was taken. Other requests wait
// for nothing: those arriving meanwhile get 503 (restoreGate).
func (h *Handler) restoreSnapshot(w http.ResponseWriter, r *http.Request) error {
	dev, err := h.l.Dev()
	if err != nil {
		return err
	}
	name := r.PathValue("name")
	start := time.Now()
	if err := dev.Restore(r.Context(), name); err != nil {
		return err
	}
	return web.WriteJSON(w, http.StatusOK, map[string]any{"restored": name, "took_ms": time.Since(start).Milliseconds()})
}

// resetDevnet answers POST /v0/admin/devnet/reset: a new network of the
// same identity; the snapshots stay.
func (h *Handler) resetDevnet(w http.ResponseWriter, r *http.Request) error {
	dev, err := h.l.Dev()
	if err != nil {
		return err
	}
	start := time.Now()
	if err := dev.Reset(r.Context()); err != nil {
		return err
	}
	return web.WriteJSON(w, http.StatusOK, map[string]any{"reset": true, "took_ms": time.Since(start).Milliseconds()})
}

// restoreGate answers 503 with Retry-After to the requests that arrive
// while a development network is restored or reset, and lets the restore
// wait for those in flight (Ledger.Admit). Exempt: the snapshot endpoints
// (a restore must not wait for itself), the probes, static files and the
// live-update stream, which only reads and may stay open for hours. A
// production network has no gate.
func (h *Handler) restoreGate(next http.Handler) http.Handler {
	if !h.l.DevNet() {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := r.URL.Path
		if strings.Contains(p, "/v0/admin/devnet/snapshots") || strings.HasSuffix(p, "/v0/admin/devnet/reset") ||
			p == "/events" || p == "/readyz" || p == "/livez" || strings.HasPrefix(p, "/static/") {
			next.ServeHTTP(w, r)
			return
		}
		done, err := h.l.Admit()
		if err != nil {
			w.Header().Set("Retry-After", "1")
			web.WriteError(w, http.StatusServiceUnavailable, "The development network is being restored from a snapshot or reset; retry in a moment.")
			return
		}
		defer done()
		next.ServeHTTP(w, r)
	})
}
