package pgbatch

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/store"
)

// TestFastWriteVariants: the fast write of each set of tables inserts
// into those tables only, and takes exactly the arguments fastWriteArgs
// gives it, numbered without gaps; filledTables names the tables a
// Writes has rows for, and every table's is the whole statement.
func TestFastWriteVariants(t *testing.T) {
	param := regexp.MustCompile(`\$(\d+)`)
	for mask := tableMask(0); mask <= allTables; mask++ {
		name, sql := fastWrite(mask)
		if name2, _ := fastWrite(mask); name2 != name {
			t.Fatalf("mask %x: names %q and %q", mask, name, name2)
		}
		for i, tb := range tables {
			if got := strings.Contains(sql, "INSERT INTO "+tb.name+" ("); got != mask.has(i) {
				t.Errorf("mask %x: insert into %s: %v, want %v", mask, tb.name, got, mask.has(i))
			}
		}
		seen := map[int]bool{}
		for _, m := range param.FindAllStringSubmatch(sql, -1) {
			n, _ := strconv.Atoi(m[1])
			seen[n] = true
		}
		args := fastWriteArgs(&store.Writes{}, store.FastSend{}, mask)
		for n := 1; n <= len(args); n++ {
			if !seen[n] {
				t.Errorf("mask %x: parameter $%d unused", mask, n)
			}
		}
		if seen[len(args)+1] {
			t.Errorf("mask %x: $%d has no argument (%d arguments)", mask, len(args)+1, len(args))
		}
	}
	if _, sql := fastWrite(allTables); sql != fastWriteSQL {
		t.Error("the fast write of every table differs from fastWriteSQL")
	}
	w := &store.Writes{Holdings: []store.Holding{{ContractID: coin.NewContractID()}}, Commands: []store.Command{{}}}
	var want tableMask
	for i, tb := range tables {
		if tb.name == "holdings" || tb.name == "commands" {
			want |= 1 << i
		}
	}
	if got := filledTables(w); got != want {
		t.Errorf("filledTables = %x, want %x", got, want)
	}
}
