package handlers

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/coin"
	"github.com/ccwallet/ccwallet/web"
)

// uiEvents serves GET /events: server-sent events telling the page that
// the user's history (and so its balance) changed. It polls the newest
// history id; cheap, and it sees changes made by any replica.
func (h *Handler) uiEvents(w http.ResponseWriter, r *http.Request, s *web.Session) error {
	party := uiParty(r)
	last, err := h.latestHistoryID(r.Context(), party)
	if err != nil {
		return err
	}
	rc := http.NewResponseController(w)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	// retry: how long the browser waits before reconnecting.
	fmt.Fprintf(w, "retry: 5000\n: connected\n\n")
	if err := rc.Flush(); err != nil {
		return nil
	}
	every := h.ui.EventInterval
	if every <= 0 {
		every = 2 * time.Second
	}
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-r.Context().Done():
			return nil
		case <-h.ui.Shutdown:
			return nil
		case <-tick.C:
		}
		if !h.ui.Sessions.Alive(s) {
			return nil // logged out or timed out: the stream ends with the session
		}
		id, err := h.latestHistoryID(r.Context(), party)
		if err != nil {
			return nil // the stream is open: an error page cannot be sent now
		}
		if id != last {
			last = id
			fmt.Fprintf(w, "event: changed\ndata: %d\n\n", id)
		} else {
			fmt.Fprint(w, ": keep-alive\n\n")
		}
		if err := rc.Flush(); err != nil {
			return nil
		}
	}
}

func (h *Handler) latestHistoryID(ctx context.Context, party coin.PartyID) (int64, error) {
	items, err := h.l.History(ctx, party, ledger.HistoryQuery{PageSize: 1})
	if err != nil || len(items) == 0 {
		return 0, err
	}
	return items[0].ID, nil
}
