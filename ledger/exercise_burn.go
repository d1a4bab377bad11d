package ledger

import "github.com/ccwallet/ccwallet/coin"

// burnedMeta is the metadata of a token-standard choice's result that ran
// a transfer for party: as Splice's copyOnlyBurnMeta, only what the
// transfer burned (its fees and the inputs' holding fees, as party's
// history row in t records them), and only when not zero. The
// token-standard CLI derives what a transaction minted from the holdings'
// change and this burn, so without it a transfer of coin that paid
// holding fees reads as a negative mint.
func (t *changes) burnedMeta(party coin.PartyID) map[string]any {
	d, _ := t.historyOf(party)
	if burned := d.Fees.Add(d.HoldingFees); !burned.IsZero() {
		return metaJSON(map[string]string{MetaBurned: burned.String()})
	}
	return metaJSON(nil)
}

// historyPartyBesides is the first party other than party with a history
// row in t: the sender of an instruction its receiver accepts or rejects.
func (t *changes) historyPartyBesides(party coin.PartyID) coin.PartyID {
	for _, h := range t.history {
		if h.Party != party {
			return h.Party
		}
	}
	return ""
}
