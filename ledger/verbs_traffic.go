package ledger

import (
	"context"

	"github.com/ccwallet/ccwallet/coin"
)

// What the core keeps of traffic (the purchases, top-ups and the meter
// of a member's traffic use are in ledger/traffic): the templates the
// Ledger API's reads know, and the burn a purchase pays with.

// Traffic templates.
const (
	TemplateBuyTrafficRequest = "#splice-wallet:Splice.Wallet.BuyTrafficRequest:BuyTrafficRequest"
	TemplateMemberTraffic     = "#splice-amulet:Splice.DecentralizedSynchronizer:MemberTraffic"
)

// BurnFrom burns amount of owner's coin inside the update (inputs, holding
// fees, change), as a purchase paid to the DSO does.
func (x *Tx) BurnFrom(ctx context.Context, owner coin.PartyID, amount coin.Amount) (*TransferResult, error) {
	return x.t().burnFrom(ctx, owner, amount)
}
