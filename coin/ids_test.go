package coin

import (
	"strings"
	"testing"
)

// TestIsIDsAgreeWithParse holds IsContractID and IsPartyID to what the
// parsers accept.
func TestIsIDsAgreeWithParse(t *testing.T) {
	cid := string(NewContractID())
	party := "alice::1220" + strings.Repeat("ab", 32)
	for _, s := range []string{cid, cid[:137], "01" + cid[2:], strings.ToUpper(cid), party, "alice", "alice::1220", "::1220" + strings.Repeat("ab", 32), "", "2026-01-02T03:04:05Z"} {
		_, errC := ParseContractID(s)
		_, errP := ParsePartyID(s)
		if IsContractID(s) != (errC == nil) || IsPartyID(s) != (errP == nil) {
			t.Errorf("%q: IsContractID %v, IsPartyID %v; ParseContractID %v, ParsePartyID %v", s, IsContractID(s), IsPartyID(s), errC, errP)
		}
	}
}
