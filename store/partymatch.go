package store

import (
	"github.com/ccwallet/ccwallet/coin"
	"github.com/uptrace/bun/dialect"
	"github.com/uptrace/bun/schema"
)

// dialected is a database or a query: what knows its SQL dialect.
type dialected interface{ Dialect() schema.Dialect }

// Contracts keep their stakeholders as one text of party IDs with a space
// on each side of each (" a b "), completions their acting parties joined
// by commas. A party is found in such a list by position, never by LIKE:
// a hint may hold '_', LIKE's any-character, and SQLite's LIKE ignores
// case, so a pattern let "a_ice::ns" and, on SQLite, "Alice::ns" see
// alice::ns's contracts.

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
// stakeholders (column, of alias) include party.
func stakeholderIs(db dialected, column string, party coin.PartyID) (string, string) {
	return containsSQL(db, column), " " + string(party) + " "
}
