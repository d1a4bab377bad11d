package ledger

import (
	"context"
	"fmt"
	"strings"
)

// MemberTrafficStatus is scan's traffic status of a synchronizer member
// (GET /v0/domains/{domain}/members/{member}/traffic-status). The one
// member here is this node's participant, which submits every update:
// member is its id, with or without the PAR:: code the wallet SDK adds,
// or its operator party, under which traffic is bought. Another
// synchronizer or member is ErrNotFound.
func (l *Ledger) MemberTrafficStatus(ctx context.Context, synchronizer, member string) (TrafficStatus, error) {
	if synchronizer != l.synchronizerID {
		return TrafficStatus{}, fmt.Errorf("%w: synchronizer %s (this network's is %s)", ErrNotFound, synchronizer, l.synchronizerID)
	}
	id := strings.TrimPrefix(member, "PAR::")
	if id != l.participantID() && id != string(l.operator) {
		return TrafficStatus{}, fmt.Errorf("%w: member %s on synchronizer %s (its participant is PAR::%s)", ErrNotFound, member, synchronizer, l.participantID())
	}
	return l.TrafficStatusOf(ctx, string(l.operator))
}
