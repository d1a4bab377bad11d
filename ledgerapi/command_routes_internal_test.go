package ledgerapi

import (
	"strings"
	"testing"
)

// TestSupportedCommandsFromTable: the list of supported commands the
// refusals quote is made from the command table: each routed choice is
// run by its route and named in the list with its target, each create
// too; an unknown choice on a target of the table is refused unless its
// run refuses it itself (the trading app's, app payments').
func TestSupportedCommandsFromTable(t *testing.T) {
	for i, rt := range commandRoutes {
		if !strings.Contains(supportedCommands, " on "+rt.target) {
			t.Errorf("the list lacks %s", rt.target)
		}
		for _, c := range rt.choices {
			if got := routeOf(rt.target, c); got != &commandRoutes[i] {
				t.Errorf("%s on %s is not run by its route", c, rt.target)
			}
			_, suffix, _ := strings.Cut(c, "_")
			if !strings.Contains(supportedCommands, c) && !strings.Contains(supportedCommands, "_"+suffix) {
				t.Errorf("the list lacks %s", c)
			}
			if servedChoice(rt.target, c) == rt.notPrepared {
				t.Errorf("%s on %s: prepared %v, want %v", c, rt.target, !rt.notPrepared, !rt.notPrepared)
			}
		}
		if got := routeOf(rt.target, "Nothing_Such"); (got != nil) != rt.anyChoice {
			t.Errorf("an unknown choice on %s routed: %v", rt.target, got != nil)
		}
	}
	for tmpl := range createRoutes {
		if !strings.Contains(supportedCommands, "CreateCommand of ") || !strings.Contains(supportedCommands, tmpl) {
			t.Errorf("the list lacks the create of %s", tmpl)
		}
	}
}
