package api_test

import (
	"context"
	"testing"
	"time"

	"github.com/ccwallet/ccwallet/ledger/ledgertest"
	"github.com/ccwallet/ccwallet/ledger/traffic"
)

// TestScanMemberTrafficStatus: scan's traffic status of this node's
// participant, as the wallet SDK asks for it (PAR::<participant id>) with
// no token, at the root and under /api/scan: the traffic bought is the
// limit and the target; another member or synchronizer is 404. The
// registry answers under /api/scan as at the root.
func TestScanMemberTrafficStatus(t *testing.T) {
	for _, engine := range ledgertest.Engines {
		t.Run(ledgertest.Name(engine), func(t *testing.T) {
			t.Parallel()
			e := newContractEnv(t, engine)
			ctx := context.Background()
			op := e.l.Operator()
			ledgertest.Mint(t, e.l, op, "1000")
			bytes := e.l.Rules().MinTopupAmountBytes
			if _, err := traffic.New(e.l).BuyTraffic(ctx, traffic.BuyTrafficRequest{Payer: op, Member: op, SynchronizerID: e.l.SynchronizerID(),
				Bytes: bytes, ExpiresAt: time.Now().Add(time.Hour), TrackingID: "t1"}); err != nil {
				t.Fatal(err)
			}
			path := "/v0/domains/" + e.l.SynchronizerID() + "/members/PAR::" + e.l.ParticipantID() + "/traffic-status"
			var got struct {
				TrafficStatus struct {
					Actual struct {
						TotalConsumed *int64 `json:"total_consumed"`
						TotalLimit    int64  `json:"total_limit"`
					} `json:"actual"`
					Target struct {
						TotalPurchased int64 `json:"total_purchased"`
					} `json:"target"`
				} `json:"traffic_status"`
			}
			r := e.expect("", "GET", path, nil, 200)
			r.JSON(t, &got)
			ts := got.TrafficStatus
			if ts.Target.TotalPurchased != bytes || ts.Actual.TotalLimit != bytes || ts.Actual.TotalConsumed == nil {
				t.Errorf("traffic status = %s, want %d bought and the limit", r.Body, bytes)
			}
			e.same("under /api/scan", r, e.client("").DoOwn("GET", "/api/scan"+path, nil))
			e.expect("", "GET", "/v0/domains/"+e.l.SynchronizerID()+"/members/PAR::participant::1220ab/traffic-status", nil, 404)
			// The registry too, as scan serves it under its base path.
			e.same("the registry under /api/scan", e.expect("", "GET", "/registry/metadata/v1/info", nil, 200),
				e.client("").DoOwn("GET", "/api/scan/registry/metadata/v1/info", nil))
			e.expect("", "GET", "/v0/domains/other::1220ab/members/PAR::"+e.l.ParticipantID()+"/traffic-status", nil, 404)
		})
	}
}
