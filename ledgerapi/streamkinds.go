package ledgerapi

import (
	"context"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger/apiread"
	"github.com/ccwallet/ccwallet/ledger/commands"
	"github.com/ccwallet/ccwallet/ledgerapi/internal/canton"
	"github.com/ccwallet/ccwallet/ledgerapi/streams"
)

// The WebSocket streams' kinds: what each sends (ledgerapi/streams
// serves the sockets). The request message is the POST form's, checked
// and answered by the same code (reads.go, completions.go).

// updatesStream is GET /v2/updates, /v2/updates/flats and
// /v2/updates/trees.
type updatesStream struct {
	s     *Server
	req   updatesRequest
	trees bool
	ef    *eventFormat
	begin int64
	end   int64
}

func (u *updatesStream) Request() any { return &u.req }

func (u *updatesStream) Check(c *canton.Caller) (err error) {
	u.ef, u.begin, u.end, err = u.req.parse(c, u.trees)
	return err
}

func (u *updatesStream) Run(ws *streams.Stream) error {
	s := u.s
	return ws.Follow(u.begin, u.end, func(pos int64) (int64, int64, bool, error) {
		var ups []apiread.LedgerUpdate
		var scanned int64
		err := ws.Read(func(ctx context.Context) (err error) {
			ups, scanned, err = s.w.APIRead.Updates(ctx, u.ef.ledgerFilter(), pos, u.end, apiread.MaxAPIPage)
			return err
		})
		if err != nil {
			return 0, 0, false, err
		}
		last := pos
		for _, up := range ups {
			for _, m := range s.updateMessages([]apiread.LedgerUpdate{up}, u.ef, u.trees) {
				if err := ws.Send(m); err != nil {
					return 0, 0, false, err
				}
				last = up.Offset
			}
		}
		return scanned, last, len(ups) == apiread.MaxAPIPage, nil
	}, func(offset int64) any {
		return map[string]any{"update": map[string]any{"OffsetCheckpoint": s.offsetCheckpoint(offset)}}
	})
}

// completionsStream is GET /v2/commands/completions.
type completionsStream struct {
	s       *Server
	req     completionsRequest
	parties []coin.PartyID
	begin   int64
	// What the last read knew: the hub's poll count and when it read.
	read   bool
	polled uint64
	readAt time.Time
}

// idle says whether a read after pos would find nothing: no completion
// of the user committed here past pos (the ledger's mark) and no poll
// saw another replica move the ledger since the last read, which was
// less than a checkpoint period ago (a read now and then moves the
// position, for the checkpoints). Each commit wakes every stream; with
// the SDK's stream per transfer, 8 clients read 8 times per commit.
func (cs *completionsStream) idle(ws *streams.Stream, user string, pos int64) bool {
	polled := ws.Polled()
	if cs.read && cs.s.l.CompletionMark(user) <= pos && polled == cs.polled && time.Since(cs.readAt) < ws.CheckpointPeriod() {
		return true
	}
	cs.read, cs.polled, cs.readAt = true, polled, time.Now()
	return false
}

func (cs *completionsStream) Request() any { return &cs.req }

func (cs *completionsStream) Check(c *canton.Caller) (err error) {
	cs.parties, cs.begin, err = cs.req.parse(c)
	return err
}

func (cs *completionsStream) Run(ws *streams.Stream) error {
	s := cs.s
	user := s.userKey(ws.Caller().User.Name)
	return ws.Follow(cs.begin, 0, func(pos int64) (int64, int64, bool, error) {
		if cs.idle(ws, user, pos) {
			return pos, pos, false, nil
		}
		var end int64
		var got []commands.Completion
		err := ws.Read(func(ctx context.Context) (err error) {
			// The end the read went up to: every completion up to it is
			// in it.
			got, end, err = s.completionsOf(ctx, ws.Caller().User.Name, cs.parties, pos, apiread.MaxAPIPage, true)
			return err
		})
		if err != nil {
			return 0, 0, false, err
		}
		last := pos
		for _, c := range got {
			if err := ws.Send(s.completionMessage(c)); err != nil {
				return 0, 0, false, err
			}
			last = c.Offset
		}
		if len(got) == apiread.MaxAPIPage {
			return last, last, true, nil
		}
		return max(end, last), last, false, nil
	}, func(offset int64) any { return s.completionCheckpoint(offset) })
}

// acsStream is GET /v2/state/active-contracts: the snapshot, page by page,
// then the close.
type acsStream struct {
	s   *Server
	req acsRequest
	ef  *eventFormat
	at  int64
}

func (a *acsStream) Request() any { return &a.req }

func (a *acsStream) Check(c *canton.Caller) (err error) {
	a.ef, a.at, err = a.req.parse(c)
	return err
}

func (a *acsStream) Run(ws *streams.Stream) error {
	s := a.s
	key := apiread.FirstContractKey
	for {
		var cs []apiread.LedgerContract
		err := ws.Read(func(ctx context.Context) (err error) {
			cs, err = s.w.APIRead.ActiveContractsAfter(ctx, a.ef.ledgerFilter(), a.at, key, apiread.MaxAPIPage)
			return err
		})
		if err != nil {
			return err
		}
		for _, ct := range cs {
			if e, ok := s.acsEntryOf(ct, a.ef); ok {
				if err := ws.Send(e); err != nil {
					return err
				}
			}
		}
		if len(cs) < apiread.MaxAPIPage {
			return nil
		}
		last := cs[len(cs)-1]
		key = apiread.ContractKey{Offset: last.CreatedOffset, ContractID: last.ContractID}
	}
}
