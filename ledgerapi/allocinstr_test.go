package ledgerapi_test

import (
	"net/http"
	"testing"

	"github.com/ccwallet/ccwallet/coin"
)

// TestAllocationInstructionChoices: AllocationInstruction_Withdraw (which
// the wallet SDK's token-standard controller builds) and _Update are
// served, submitted and prepared alike: allocations here are made at once,
// so no instruction is ever pending and any contract id, a holding's too,
// is CONTRACT_NOT_FOUND, as on Canton for a contract that is not an
// active AllocationInstruction; nothing changes.
func TestAllocationInstructionChoices(t *testing.T) {
	forEachEngine(t, func(t *testing.T, e *env) {
		const iface = "#splice-api-token-allocation-instruction-v1:Splice.Api.Token.AllocationInstructionV1:AllocationInstruction"
		alice := e.user("alice", "100")
		x := e.external("xena", "50")
		var holding string
		for _, h := range e.acs("alice", filter(alice, interfaceFilter(holdingIface, false, false)), e.ledgerEnd()) {
			holding = h.ContractID
		}
		extra := map[string]any{"extraArgs": emptyExtra()}
		for i, cid := range []string{holding, string(coin.NewContractID())} {
			for _, choice := range []string{"AllocationInstruction_Withdraw", "AllocationInstruction_Update"} {
				arg := extra
				if choice == "AllocationInstruction_Update" {
					arg = map[string]any{"extraActors": []string{}, "extraArgs": emptyExtra()}
				}
				code, b := e.command("alice", "ai-"+choice+string(rune('0'+i)), alice, exercise(iface, cid, choice, arg), nil)
				wantCode(t, choice+" submitted", code, b, http.StatusNotFound, "CONTRACT_NOT_FOUND")
				p := e.prepare(x.user, x.party, "ai-x-"+choice+string(rune('0'+i)), exercise(iface, cid, choice, arg), nil)
				wantCode(t, choice+" prepared", p.StatusCode(), p.Body, http.StatusNotFound, "CONTRACT_NOT_FOUND")
			}
		}
		if got := e.holds("alice", alice); !got.Equal(coin.MustParse("100")) {
			t.Errorf("alice holds %s, want 100", got)
		}
	})
}
