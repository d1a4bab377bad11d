package store

import (
	"context"
	"fmt"
	"strings"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/uptrace/bun"
)

// PendingMark sums up the offers and instructions party sends or receives
// that are in the given open statuses: per list how many there are and
// when the newest was created. Any change to the lists changes the mark,
// since status only ever leaves the open one: a list that loses one and
// gains another keeps its count but gains a newer newest. It is compared,
// not read. Live updates poll it, so it reads only index ranges of the
// party's open ones.
func PendingMark(ctx context.Context, db bun.IDB, party coin.PartyID, offerStatus, instructionStatus string) (string, error) {
	var cols []string
	var args []any
	for _, s := range [][3]string{
		{"transfer_offers", "receiver", "created_at"},
		{"transfer_offers", "sender", "created_at"},
		{"transfer_instructions", "receiver", "created_offset"},
		{"transfer_instructions", "sender", "created_offset"},
	} {
		status := offerStatus
		if s[0] == "transfer_instructions" {
			status = instructionStatus
		}
		cols = append(cols, "(SELECT CAST(count(*) AS TEXT) || '@' || COALESCE(CAST(max("+s[2]+") AS TEXT), '') FROM "+s[0]+
			" WHERE "+s[1]+" = ? AND status = ?)")
		args = append(args, party, status)
	}
	// One round trip and one row: the four lists' marks in this order.
	var m [4]string
	if err := db.QueryRowContext(ctx, "SELECT "+strings.Join(cols, ", "), args...).Scan(&m[0], &m[1], &m[2], &m[3]); err != nil {
		return "", fmt.Errorf("pending mark of %s: %w", party, Normalize(err))
	}
	return strings.Join(m[:], ";"), nil
}
