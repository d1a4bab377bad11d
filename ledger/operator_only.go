package ledger

import "github.com/ccwallet/ccwallet/coin"

// OperatorOnly refuses (ErrForbidden) any party but the validator
// operator's: the operator's pages (minting delegations, whose proposals
// always name the operator as delegate) answer only to it, so a user who
// opens one is told so rather than shown an empty operator page.
func (l *Ledger) OperatorOnly(party coin.PartyID) error {
	if party == l.operator {
		return nil
	}
	return problem(ErrForbidden, "this page is for the validator operator")
}
