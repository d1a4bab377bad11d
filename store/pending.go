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
//
// templates adds the party's active contracts of those templates (say an
// app's requests it has to answer), counted and newest-offset like the
// lists; they are few, read through the active contracts' template index.
func PendingMark(ctx context.Context, db bun.IDB, party coin.PartyID, offerStatus, instructionStatus string, templates ...string) (string, error) {
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
	if len(templates) > 0 {
		cols = append(cols, "(SELECT CAST(count(*) AS TEXT) || '@' || COALESCE(CAST(max(created_offset) AS TEXT), '') FROM contracts"+
			" WHERE template_id IN (?) AND archived_offset IS NULL AND "+containsSQL(db, "stakeholders")+")")
		args = append(args, bun.List(templates), ","+string(party)+",")
	}
	// One round trip and one row: the lists' marks in this order.
	m := make([]string, len(cols))
	dest := make([]any, len(cols))
	for i := range m {
		dest[i] = &m[i]
	}
	if err := db.QueryRowContext(ctx, "SELECT "+strings.Join(cols, ", "), args...).Scan(dest...); err != nil {
		return "", fmt.Errorf("pending mark of %s: %w", party, Normalize(err))
	}
	return strings.Join(m, ";"), nil
}
