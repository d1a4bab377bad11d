package traffic

import (
	"context"
	"fmt"
	"strings"

	"github.com/ccwallet/ccwallet/ledger/fault"
)

// MemberTrafficStatus is scan's traffic status of a synchronizer member
// (GET /v0/domains/{domain}/members/{member}/traffic-status). The one
// member here is this node's participant, which submits every update:
// member is its id, with or without the PAR:: code the wallet SDK adds,
// or its operator party, under which traffic is bought. Another
// synchronizer or member is ErrNotFound.
func (s *Service) MemberTrafficStatus(ctx context.Context, synchronizer, member string) (TrafficStatus, error) {
	l := s.l
	if synchronizer != l.SynchronizerID() {
		return TrafficStatus{}, fmt.Errorf("%w: synchronizer %s (this network's is %s)", fault.ErrNotFound, synchronizer, l.SynchronizerID())
	}
	id := strings.TrimPrefix(member, "PAR::")
	if id != l.ParticipantID() && id != string(l.Operator()) {
		return TrafficStatus{}, fmt.Errorf("%w: member %s on synchronizer %s (its participant is PAR::%s)", fault.ErrNotFound, member, synchronizer, l.ParticipantID())
	}
	return StatusOf(ctx, l, string(l.Operator()))
}
