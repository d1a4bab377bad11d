package apiread

import (
	"context"
	"slices"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/store"
)

// UpdatesAfter returns the updates committed after offset after, oldest
// first, at most limit (bounded by MaxUpdateEvents), as a developer
// watches them (the wallet API's update stream, devnet tail).
func (s *Service) UpdatesAfter(ctx context.Context, after int64, limit int) ([]UpdateEvent, error) {
	if limit <= 0 || limit > MaxUpdateEvents {
		limit = MaxUpdateEvents
	}
	us, err := store.UpdatesAfter(ctx, s.l.DB(), after, limit)
	if err != nil || len(us) == 0 {
		return nil, err
	}
	ts, err := store.UpdateTouches(ctx, s.l.DB(), us[0].OffsetID, us[len(us)-1].OffsetID)
	if err != nil {
		return nil, err
	}
	parties := map[int64]map[coin.PartyID]bool{}
	templates := map[int64]map[string]bool{}
	add := func(m map[int64]map[string]bool, o int64, v string) {
		if m[o] == nil {
			m[o] = map[string]bool{}
		}
		m[o][v] = true
	}
	for _, t := range ts {
		for _, p := range store.ParsePartyList(t.Parties) {
			if parties[t.Offset] == nil {
				parties[t.Offset] = map[coin.PartyID]bool{}
			}
			parties[t.Offset][p] = true
		}
		switch {
		case t.Holding == 1:
			add(templates, t.Offset, ledger.TemplateAmulet)
		case t.Template != "":
			add(templates, t.Offset, t.Template)
		}
	}
	out := make([]UpdateEvent, 0, len(us))
	for _, u := range us {
		e := UpdateEvent{Offset: u.OffsetID, UpdateID: u.UpdateID, Kind: u.Kind, Submitter: u.Submitter, Round: u.Round, Time: u.RecordTime,
			ActedBy: u.ActedBy, Parties: []coin.PartyID{}, Templates: []string{}}
		ps := parties[u.OffsetID]
		if u.Submitter != "" {
			if ps == nil {
				ps = map[coin.PartyID]bool{}
			}
			ps[coin.PartyID(u.Submitter)] = true
		}
		for p := range ps {
			e.Parties = append(e.Parties, p)
		}
		for t := range templates[u.OffsetID] {
			e.Templates = append(e.Templates, t)
		}
		slices.Sort(e.Parties)
		slices.Sort(e.Templates)
		out = append(out, e)
	}
	return out, nil
}
