package ledger

import "fmt"

// Dev is what only a development network may do beside its faucet: mint
// coin outside it and seed reward coupons, for demos, benchmarks and tests.
// Ledger.Dev is the only way to a working Dev, and a ledger not configured
// as a development network refuses it, so no production path can mint.
type Dev struct{ l *Ledger }

// Dev returns the development network's powers, or ErrDisabled unless
// the ledger runs a development network.
func (l *Ledger) Dev() (Dev, error) {
	if !l.cfg.DevNet {
		return Dev{}, fmt.Errorf("%w: minting outside the faucet is only available on a development network", ErrDisabled)
	}
	return Dev{l: l}, nil
}
