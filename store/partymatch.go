package store

import (
	"sort"
	"strings"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/uptrace/bun/dialect"
	"github.com/uptrace/bun/schema"
)

// A contract keeps its stakeholders as one text, PartyList's ",a,b,", and
// a completion its acting parties as "a,b". A comma cannot be part of a
// party ID, so ",a," is found whole and only where a is. The lists used
// to be " a b " and were searched with LIKE: a hint may hold a space
// ("john alice::ns" held " alice::ns "), '_' (LIKE's any-character) and
// either case (SQLite's LIKE ignores it), so other parties matched. They
// are searched by position now (migration 0435 rewrote the old lists).

// PartyList encodes parties, sorted and once each, as ",a,b," ("," for
// none).
func PartyList(parties []coin.PartyID) string {
	seen := map[coin.PartyID]bool{}
	var ps []string
	for _, p := range parties {
		if p != "" && !seen[p] {
			seen[p] = true
			ps = append(ps, string(p))
		}
	}
	if len(ps) == 0 {
		return ","
	}
	sort.Strings(ps)
	return "," + strings.Join(ps, ",") + ","
}

// ParsePartyList is PartyList's parties (also a single party ID, or a
// completion's "a,b").
func ParsePartyList(list string) []coin.PartyID {
	var ps []coin.PartyID
	for p := range strings.SplitSeq(list, ",") {
		if p != "" {
			ps = append(ps, coin.PartyID(p))
		}
	}
	return ps
}

// PartyListHas reports whether list, a PartyList, holds party.
func PartyListHas(list string, party coin.PartyID) bool {
	return party != "" && strings.Contains(list, ","+string(party)+",")
}

// dialected is a database or a query: what knows its SQL dialect.
type dialected interface{ Dialect() schema.Dialect }

// containsSQL is the condition that the text expression list contains
// the bound argument as a substring, exactly and case-sensitively.
func containsSQL(db dialected, list string) string { return containsExpr(db, list, "?") }

// containsExpr is the condition that the text expression list contains
// the text expression part.
func containsExpr(db dialected, list, part string) string {
	if db.Dialect().Name() == dialect.SQLite {
		return "instr(" + list + ", " + part + ") > 0"
	}
	return "strpos(" + list + ", " + part + ") > 0"
}

// stakeholderIs is the condition (with its argument) that a contract's
// stakeholders (column) include party.
func stakeholderIs(db dialected, column string, party coin.PartyID) (string, string) {
	return containsSQL(db, column), "," + string(party) + ","
}
