package ui

import (
	"context"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/views"
)

// named fills in the names of the parties the view model m (a pointer)
// shows, its views.PartyRef values, with one read; the page then renders
// once. A failed read shows no names: the page is still right without
// them.
func (h *Handler) named(ctx context.Context, m any) {
	refs := views.PartyRefs(m)
	if len(refs) == 0 {
		return
	}
	seen := make(map[coin.PartyID]bool, len(refs))
	ps := make([]coin.PartyID, 0, len(refs))
	for _, r := range refs {
		if p := coin.PartyID(r.ID); !seen[p] {
			seen[p] = true
			ps = append(ps, p)
		}
	}
	names, err := h.w.Names.NamesOf(ctx, ps)
	if err != nil {
		return
	}
	for _, r := range refs {
		r.Name = names[coin.PartyID(r.ID)]
	}
}
