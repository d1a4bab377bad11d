package ledger

import (
	"context"
	"time"

	"github.com/ccwallet/ccwallet/coin"
)

// MigrationID is the synchronizer migration this network is on. The
// embedded network has one synchronizer that is never migrated.
const MigrationID = 0

// NodeIdentity is what this validator's participant is: its ID, the
// namespace its parties are made in, and the synchronizer it is on. The
// embedded participant has no Canton node keys or topology store, so the
// validator API's identities dump has none to show.
type NodeIdentity struct {
	ParticipantID  string
	Namespace      string
	SynchronizerID string
}

// NodeIdentity returns this validator's participant identity.
func (l *Ledger) NodeIdentity() NodeIdentity {
	return NodeIdentity{ParticipantID: l.participantID(), Namespace: l.namespace, SynchronizerID: l.synchronizerID}
}

// ParticipantUser is a user of the participant and the party it acts and
// reads as.
type ParticipantUser struct {
	Name    string
	Party   coin.PartyID
	IsAdmin bool
}

// DomainDataSnapshot is the validator's data as of a time, for the
// validator API's domain data snapshot: who the participant is and its
// users. The embedded network keeps its contracts in its own database, not
// in a Canton ACS, and runs no Daml packages, so there is no ACS export
// and there are no DARs: a backup of the database is its snapshot.
type DomainDataSnapshot struct {
	Identity    NodeIdentity
	Users       []ParticipantUser
	At          time.Time
	MigrationID int64
	CreatedAt   time.Time
}

// DomainDataSnapshot returns the snapshot as of at, which must not be in
// the future; migrationID, when given, must be this network's.
func (l *Ledger) DomainDataSnapshot(ctx context.Context, at time.Time, migrationID *int64) (DomainDataSnapshot, error) {
	now := l.now()
	if at.After(now) {
		return DomainDataSnapshot{}, invalid("timestamp", "%s is in the future (now is %s)", FormatTime(at), FormatTime(now))
	}
	if migrationID != nil && *migrationID != MigrationID {
		return DomainDataSnapshot{}, invalid("migration_id", "this network is on migration %d, not %d", MigrationID, *migrationID)
	}
	us, err := l.Users(ctx)
	if err != nil {
		return DomainDataSnapshot{}, err
	}
	s := DomainDataSnapshot{Identity: l.NodeIdentity(), At: at, MigrationID: MigrationID, CreatedAt: now}
	for _, u := range us {
		s.Users = append(s.Users, ParticipantUser{Name: u.Name, Party: u.Party, IsAdmin: u.IsAdmin})
	}
	return s, nil
}
