package pending

import (
	"context"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/store"
)

// InstructionPage is one page of a party's pending transfer
// instructions, newest first.
type InstructionPage struct {
	Instructions []ledger.TransferInstruction
	// Total counts all of them; Next is the token of the page after this
	// one ("" on the last).
	Total int
	Next  string
}

// InstructionsPage lists the pending transfer instructions party
// receives (incoming) or sends, a page of size at a time, newest first;
// token is a page's Next ("" for the first). Any sender can instruct any
// receiver (each instruction locks its amount and fee reserve), so the
// receiver's list is read a page at a time, as the offers are.
func (s *Service) InstructionsPage(ctx context.Context, party coin.PartyID, incoming bool, token string, size int) (InstructionPage, error) {
	size = min(max(size, 1), MaxOfferPageSize)
	var before int64
	if token != "" {
		var err error
		if before, _, err = parsePageToken(token); err != nil {
			return InstructionPage{}, err
		}
	}
	tis, total, err := store.TransferInstructionsPage(ctx, s.l.DB(), party, incoming, string(ledger.InstructionPending), before, size+1)
	if err != nil {
		return InstructionPage{}, err
	}
	p := InstructionPage{Total: total}
	if len(tis) > size {
		tis = tis[:size]
		last := tis[size-1]
		p.Next = pageToken(last.CreatedOffset, last.ContractID)
	}
	ids := make([]coin.ContractID, len(tis))
	for i, ti := range tis {
		ids[i] = ti.ContractID
	}
	cs, err := s.l.ContractsByID(ctx, s.l.DB(), ids)
	if err != nil {
		return InstructionPage{}, err
	}
	for i := range tis {
		p.Instructions = append(p.Instructions, ledger.InstructionWithContract(s.l, &tis[i], cs[tis[i].ContractID]))
	}
	return p, nil
}
