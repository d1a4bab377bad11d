package ledger

import (
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger/fault"
)

// feeReserveMultiplier is how many times the expected fees a two-step
// transfer's lock reserves on top of its amount, as Splice's
// TwoStepTransfer does (feeReserveMultiplier = 4.0): fees and rounds may
// move between the lock and the transfer.
const feeReserveMultiplier = 4

// TransferLockReserve is what a transfer instruction locks beyond amount
// at price for a lock held for d: four times the transfer's expected fee
// plus the holding fees the lock accrues over d (one round's fee for every
// tick begun), as Splice's prepareTwoStepTransfer reserves. Without it,
// the holding fees of a long-lived lock eat into the amount, and an accept
// would deliver less than was instructed.
func (r Rules) TransferLockReserve(amount, price coin.Amount, d time.Duration) coin.Amount {
	rounds := int64(1)
	if r.TickDuration > 0 && d > 0 {
		rounds = int64((d + r.TickDuration - 1) / r.TickDuration)
	}
	fees := r.OutputFee(amount, price, false).Add(r.HoldingRate(price).MulInt(rounds))
	return fees.MulInt(feeReserveMultiplier)
}

// lockShortfall is the refusal of an accept whose lock, after the holding
// fees it accrued, is worth less than the instruction's amount (rounds
// moved faster than the ledger's clock, as a development network's time
// jump makes them): the receiver would get less than was instructed, so
// nothing moves; the sender can withdraw and send again.
func lockShortfall(worth, amount coin.Amount) error {
	return problem(fault.ErrInsufficientFunds, "the coin locked for this transfer is now worth %s CC after holding fees, less than the %s CC instructed, so it cannot be accepted; ask the sender to withdraw it and send again",
		HumanCC(worth), HumanCC(amount))
}
