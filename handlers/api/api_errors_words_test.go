package api_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/handlers/handlerstest"
)

// TestAPIErrorsInPeoplesWords: the JSON API's {"error"} carries the same
// words where it is the same error, after the field prefix it keeps, and
// offboarding through it says why it cannot.
func TestAPIErrorsInPeoplesWords(t *testing.T) {
	handlerstest.ForEachAPI(t, func(t *testing.T, a *handlerstest.API) {
		alice, _ := a.User("alice", "10")
		_, bob := a.User("bob", "")
		exp := a.Clock.Now().Add(time.Hour)
		for _, tc := range []struct {
			amount, want string
		}{
			{"1.123456789012", `"1.123456789012" has 12 decimal places: use at most 10`},
			{"12", "insufficient funds: the offer of 12 CC is more than your available 10 CC; offer less, or wait for incoming coin"},
		} {
			r := alice.Do("POST", "/v0/wallet/transfer-offers", offerBody(bob, tc.amount, "t-"+tc.amount, exp))
			if r.Status != http.StatusBadRequest || !strings.Contains(r.Error(), tc.want) {
				t.Errorf("offer of %s = %d %q, want 400 with %q", tc.amount, r.Status, r.Error(), tc.want)
			}
		}
		admin := a.As("admin")
		if r := admin.Do("POST", "/v0/admin/users/offboard?username=nobody", nil); r.Status != http.StatusNotFound ||
			r.Error() != "there is no user nobody on this validator; check the user ID" {
			t.Errorf("offboarding an unknown user = %d %q", r.Status, r.Error())
		}
	})
}
