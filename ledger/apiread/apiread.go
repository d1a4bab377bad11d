// Package apiread owns the JSON Ledger API's read model over the store:
// the contracts as the Ledger API shows them (LedgerContract, with
// signatories, observers and offsets), the templates and token-standard
// interfaces of the coin's contracts and a contract's interface views
// (InterfaceView), the offset rule (an offset below the pruned one is
// ErrPruned, past the ledger end ErrAfterLedgerEnd), the ledger end and
// pruned offset, the active contract set as of an offset (paged by
// ContractKey), a contract by id, the updates with their contract
// events (LedgerUpdate), the updates' ids and times, an update's offset
// by id, the node's parties, the update stream as a developer watches
// it (UpdatesAfter: the wallet API's update stream, devnet tail), the
// stable ledger end (LedgerEnd), a user's command completions
// (Completions, and whether one is stored: CompletionStored) and each
// update's ledger effects (effects.go: the consuming choice that
// archived each contract and its result, the derived root exercise, an
// exercise's informees), and the Daml result of a Ledger API command's
// exercise (exercise_results.go: ExerciseFacts, the core's
// Config.ExerciseFacts, records what it is shaped from as the command's
// change is written; ShapeExercise shapes it when it is read). The
// core keeps what its changes write: the contracts and their payloads,
// the exercise a command records with its completion (commands.Exercise)
// and the completions themselves.
package apiread

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/bounds"
	"github.com/ccwallet/ccwallet/ledger/fault"
	"github.com/ccwallet/ccwallet/store"
	"github.com/uptrace/bun"
)

// Service is the Ledger API's reads of one ledger.
type Service struct{ l *ledger.Ledger }

// New builds l's Ledger API reads.
func New(l *ledger.Ledger) *Service { return &Service{l: l} }

// ContractFilter selects contracts for the Ledger API.
type ContractFilter struct {
	// Parties keeps contracts with one of them as stakeholder; nil keeps
	// every contract.
	Parties []coin.PartyID
	// Templates keeps contracts of these templates; nil keeps every one.
	Templates []string
}

// holdingOwners is which owners' unlocked holdings f sees: nil for all
// (the DSO is a stakeholder of every holding), and whether it sees any.
func (s *Service) holdingOwners(f ContractFilter) ([]coin.PartyID, bool) {
	if f.Templates != nil && !slices.Contains(f.Templates, ledger.TemplateAmulet) {
		return nil, false
	}
	if f.Parties == nil || slices.Contains(f.Parties, s.l.DSO()) {
		return nil, true
	}
	return f.Parties, len(f.Parties) > 0
}

// PrunedOffset is the offset up to which (inclusive) the update log was
// pruned; 0 when it never was.
func (s *Service) PrunedOffset(ctx context.Context) (int64, error) {
	t, err := store.LoadPrunedTotals(ctx, s.l.DB())
	if err != nil {
		return 0, err
	}
	return t.LastOffset, nil
}

// ActiveContracts lists the contracts f selects that are active at
// offset at, oldest first, at most limit (at most MaxAPIPage). Offset 0
// is the ledger's beginning, before any contract.
func (s *Service) ActiveContracts(ctx context.Context, f ContractFilter, at int64, limit int) ([]LedgerContract, error) {
	return s.ActiveContractsAfter(ctx, f, at, store.FirstContractKey, limit)
}

// ContractKey is a place in the order of the active contract set: by
// created offset, then contract id.
type ContractKey = store.ContractKey

// FirstContractKey is before every contract.
var FirstContractKey = store.FirstContractKey

// ActiveContractsAfter is ActiveContracts after key, so a reader pages
// through the whole set: each page's last contract is the next page's key.
func (s *Service) ActiveContractsAfter(ctx context.Context, f ContractFilter, at int64, key ContractKey, limit int) ([]LedgerContract, error) {
	if limit <= 0 || limit > MaxAPIPage {
		limit = MaxAPIPage
	}
	var out []LedgerContract
	// Plain reads: offsets are given out in commit order, so bounding
	// every query by an offset read first gives a consistent answer.
	var tx bun.IDB = s.l.DB()
	err := func() error {
		out = nil
		if _, err := checkOffset(ctx, tx, "activeAtOffset", at); err != nil || at == 0 {
			return err
		}
		cs, err := store.ActiveContractsAfter(ctx, tx, store.ContractQuery{Parties: f.Parties, Templates: f.Templates, Upto: at, Limit: limit}, key)
		if err != nil {
			return err
		}
		for i := range cs {
			out = append(out, LedgerContractOf(s.l, &cs[i]))
		}
		if owners, ok := s.holdingOwners(f); ok {
			hs, err := store.UnlockedHoldingsAfter(ctx, tx, owners, at, key, limit)
			if err != nil {
				return err
			}
			for _, h := range hs {
				out = append(out, s.holdingLedgerContract(h))
			}
		}
		return nil
	}()
	if err != nil {
		return nil, err
	}
	sortContracts(out)
	if len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

func sortContracts(cs []LedgerContract) {
	slices.SortFunc(cs, func(a, b LedgerContract) int {
		return cmp.Or(cmp.Compare(a.CreatedOffset, b.CreatedOffset), cmp.Compare(a.ContractID, b.ContractID))
	})
}

// ContractByID returns a contract, active or archived, with the parties
// that may see it, or fault.ErrNotFound.
func (s *Service) LedgerContractByID(ctx context.Context, cid coin.ContractID) (LedgerContract, error) {
	c, err := store.ContractByID(ctx, s.l.DB(), cid)
	if err == nil {
		return LedgerContractOf(s.l, c), nil
	}
	if !errors.Is(err, store.ErrNotFound) {
		return LedgerContract{}, err
	}
	h, err := store.UnlockedHoldingByID(ctx, s.l.DB(), cid)
	if err != nil {
		return LedgerContract{}, fmt.Errorf("contract %s: %w", cid, err)
	}
	return s.holdingLedgerContract(*h), nil
}

// Updates returns the updates in (after, upto] with events f selects,
// oldest first, at most limit (at most MaxAPIPage); upto 0 means the
// ledger end. scanned is the offset the page read up to: the next page
// starts after it (updates in between had no event for f).
func (s *Service) Updates(ctx context.Context, f ContractFilter, after, upto int64, limit int) (ups []LedgerUpdate, scanned int64, err error) {
	if limit <= 0 || limit > MaxAPIPage {
		limit = MaxAPIPage
	}
	var tx bun.IDB = s.l.DB()
	err = func() error {
		ups = nil
		end, err := checkOffset(ctx, tx, "beginExclusive", after)
		if err != nil {
			return err
		}
		if upto == 0 {
			// Open-ended: up to the stable end, so a reader that goes on
			// from the last offset read skips nothing committed later.
			if upto, err = s.LedgerEnd(ctx); err != nil {
				return err
			}
			upto = max(min(upto, end), after)
		} else if _, err := checkOffset(ctx, tx, "endInclusive", upto); err != nil {
			return err
		} else if upto < after {
			return fault.Invalid("endInclusive", "must not be before beginExclusive")
		}
		scanned = upto
		q := store.ContractQuery{Parties: f.Parties, Templates: f.Templates, After: after, Upto: upto, Limit: limit}
		owners, holdings := s.holdingOwners(f)
		offsets, err := store.EventOffsets(ctx, tx, q, holdings, owners)
		if err != nil || len(offsets) == 0 {
			return err
		}
		if len(offsets) == limit {
			scanned = offsets[len(offsets)-1]
		}
		q.Upto = scanned
		us, err := store.UpdatesAt(ctx, tx, offsets)
		if err != nil {
			return err
		}
		byOffset := make(map[int64]*LedgerUpdate, len(us))
		exercises, err := store.CompletionExercises(ctx, tx, offsets)
		if err != nil {
			return err
		}
		for _, u := range us {
			ups = append(ups, LedgerUpdate{Offset: u.OffsetID, UpdateID: u.UpdateID, Kind: u.Kind, RecordTime: u.RecordTime,
				Exercise: ParseExercise(exercises[u.OffsetID])})
		}
		for i := range ups {
			byOffset[ups[i].Offset] = &ups[i]
		}
		add := func(c LedgerContract) {
			if u := byOffset[c.CreatedOffset]; u != nil {
				u.Events = append(u.Events, LedgerEvent{Contract: c})
			}
			if u := byOffset[c.ArchivedOffset]; u != nil && c.ArchivedOffset != 0 {
				u.Events = append(u.Events, LedgerEvent{Archived: true, Contract: c})
			}
		}
		cs, err := store.ContractsChanged(ctx, tx, q)
		if err != nil {
			return err
		}
		for i := range cs {
			add(LedgerContractOf(s.l, &cs[i]))
		}
		if holdings {
			hs, err := store.UnlockedHoldingsChanged(ctx, tx, owners, after, scanned)
			if err != nil {
				return err
			}
			for _, h := range hs {
				add(s.holdingLedgerContract(h))
			}
		}
		derivedFrom := make([]*LedgerContract, len(ups))
		for i := range ups {
			if ups[i].Exercise == nil {
				ups[i].Exercise, derivedFrom[i] = DerivedExercise(ups[i])
			}
		}
		if err := s.addDescendants(ctx, tx, f, ups); err != nil {
			return err
		}
		for i := range ups {
			DeriveResult(ups[i], derivedFrom[i])
		}
		return nil
	}()
	if err != nil {
		return nil, 0, err
	}
	for i := range ups {
		// Archives first, then creates, each by contract: a stable order
		// that gives each event its node id.
		slices.SortFunc(ups[i].Events, func(a, b LedgerEvent) int {
			if a.Archived != b.Archived {
				if a.Archived {
					return -1
				}
				return 1
			}
			return cmp.Compare(a.Contract.ContractID, b.Contract.ContractID)
		})
	}
	return ups, scanned, nil
}

// PartyInfo is a party known to this node.
type PartyInfo struct {
	Party coin.PartyID
	Kind  string // local, external, dso, operator...
}

// MaxPartiesPage bounds a page of parties.
const MaxPartiesPage = 1000

// Parties lists the parties after after (by ID), at most limit.
func (s *Service) Parties(ctx context.Context, after coin.PartyID, limit int) ([]PartyInfo, error) {
	if limit <= 0 || limit > MaxPartiesPage {
		limit = MaxPartiesPage
	}
	ps, err := store.PartiesAfter(ctx, s.l.DB(), after, limit)
	if err != nil {
		return nil, err
	}
	out := make([]PartyInfo, len(ps))
	for i, p := range ps {
		out[i] = PartyInfo{Party: p.PartyID, Kind: p.Kind}
	}
	return out, nil
}

// UpdateAt returns the id and record time of the update at offset.
func (s *Service) UpdateAt(ctx context.Context, offset int64) (string, time.Time, error) {
	us, err := store.UpdatesAt(ctx, s.l.DB(), []int64{offset})
	if err != nil {
		return "", time.Time{}, err
	}
	if len(us) == 0 {
		return "", time.Time{}, fmt.Errorf("update at offset %d: %w", offset, fault.ErrNotFound)
	}
	return us[0].UpdateID, us[0].RecordTime, nil
}

// UpdateOffset returns the offset of the update with id updateID.
func (s *Service) UpdateOffset(ctx context.Context, updateID string) (int64, error) {
	if err := bounds.CheckID("updateId", updateID); err != nil {
		return 0, err
	}
	u, err := store.UpdateByID(ctx, s.l.DB(), updateID)
	if err != nil {
		return 0, err
	}
	return u.OffsetID, nil
}

// LedgerEnd is the offset of the latest update at or below which every
// update is committed (store.DB.StableEnd): a stream from it misses no
// update committed later.
func (s *Service) LedgerEnd(ctx context.Context) (int64, error) {
	return s.l.DB().StableEnd(ctx)
}
