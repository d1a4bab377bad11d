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

// TransferInstructionsListPage is a party's pending transfer instructions
// a page at a time (the API's listTokenStandardTransfers): up to size it
// sends or receives, newest first, after the page token ("" for the first
// page), and the next page's token ("" on the last). The token names the
// page's last instruction, so instructions created meanwhile neither
// shift nor repeat the pages after it.
func (s *Service) TransferInstructionsListPage(ctx context.Context, party coin.PartyID, token string, size int) ([]ledger.TransferInstruction, string, error) {
	size = min(max(size, 1), MaxOfferPageSize)
	var after *store.InstructionCursor
	if token != "" {
		offset, cid, err := parsePageToken(token)
		if err != nil {
			return nil, "", err
		}
		after = &store.InstructionCursor{CreatedOffset: offset, ContractID: cid}
	}
	tis, err := store.TransferInstructionsEitherPage(ctx, s.l.DB(), party, string(ledger.InstructionPending), after, size+1)
	if err != nil {
		return nil, "", err
	}
	next := ""
	if len(tis) > size {
		tis = tis[:size]
		next = pageToken(tis[size-1].CreatedOffset, tis[size-1].ContractID)
	}
	ids := make([]coin.ContractID, len(tis))
	for i, ti := range tis {
		ids[i] = ti.ContractID
	}
	cs, err := s.l.ContractsByID(ctx, s.l.DB(), ids)
	if err != nil {
		return nil, "", err
	}
	out := make([]ledger.TransferInstruction, 0, len(tis))
	for i := range tis {
		out = append(out, ledger.InstructionWithContract(s.l, &tis[i], cs[tis[i].ContractID]))
	}
	return out, next, nil
}
