package pending

import (
	"context"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/store"
)

// DefaultInstructionListPage is how many pending transfer instructions
// the API's list answers when the client names no page size; the most a
// page holds is MaxOfferPageSize. Any party can instruct any other, so
// the list is never answered whole.
const DefaultInstructionListPage = 200

// Direction is which of a party's instructions a page lists.
type Direction int

const (
	// Both lists what the party sends and what it receives (the API's
	// listTokenStandardTransfers).
	Both Direction = iota
	// In lists what the party receives.
	In
	// Out lists what the party sends.
	Out
)

// sides are the instruction columns that name the party in direction d.
func (d Direction) sides() []string {
	switch d {
	case In:
		return []string{"receiver"}
	case Out:
		return []string{"sender"}
	}
	return []string{"sender", "receiver"}
}

// InstructionPage is one page of a party's pending transfer
// instructions, newest first.
type InstructionPage struct {
	Instructions []ledger.TransferInstruction
	// Total counts all of them (In and Out; Both leaves it 0: the API
	// never shows it); Next is the token of the page after this one (""
	// on the last).
	Total int
	Next  string
}

// InstructionsPage lists the pending transfer instructions party
// receives (In), sends (Out) or either (Both), a page of size at a time,
// newest first; token is a page's Next ("" for the first). The token
// names the page's last instruction, so instructions created meanwhile
// neither shift nor repeat the pages after it. Any sender can instruct
// any receiver (each instruction locks its amount and fee reserve), so
// the lists are read a page at a time, as the offers are.
func (s *Service) InstructionsPage(ctx context.Context, party coin.PartyID, dir Direction, token string, size int) (InstructionPage, error) {
	size = min(max(size, 1), MaxOfferPageSize)
	var after *store.InstructionCursor
	if token != "" {
		offset, cid, err := parsePageToken(token)
		if err != nil {
			return InstructionPage{}, err
		}
		after = &store.InstructionCursor{CreatedOffset: offset, ContractID: cid}
	}
	status := string(ledger.InstructionPending)
	var p InstructionPage
	if sides := dir.sides(); len(sides) == 1 {
		n, err := store.CountTransferInstructions(ctx, s.l.DB(), party, sides[0], status)
		if err != nil {
			return InstructionPage{}, err
		}
		p.Total = n
		if n == 0 {
			return p, nil // nothing pending: no page to read
		}
	}
	tis, err := store.TransferInstructionsPage(ctx, s.l.DB(), party, status, after, size+1, dir.sides()...)
	if err != nil {
		return InstructionPage{}, err
	}
	if len(tis) > size {
		tis = tis[:size]
		last := tis[size-1]
		p.Next = pageToken(last.CreatedOffset, last.ContractID)
	}
	if p.Instructions, err = s.withContracts(ctx, tis); err != nil {
		return InstructionPage{}, err
	}
	return p, nil
}
