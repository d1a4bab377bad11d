package scan

import (
	"context"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/fault"
	"github.com/ccwallet/ccwallet/ledger/users"
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
func (s *Service) NodeIdentity() NodeIdentity {
	return NodeIdentity{ParticipantID: s.l.ParticipantID(), Namespace: s.l.Namespace(), SynchronizerID: s.l.SynchronizerID()}
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
func (s *Service) DomainDataSnapshot(ctx context.Context, at time.Time, migrationID *int64) (DomainDataSnapshot, error) {
	now := s.l.Now()
	if at.After(now) {
		return DomainDataSnapshot{}, fault.Invalid("timestamp", "%s is in the future (now is %s)", ledger.FormatTime(at), ledger.FormatTime(now))
	}
	if migrationID != nil && *migrationID != MigrationID {
		return DomainDataSnapshot{}, fault.Invalid("migration_id", "this network is on migration %d, not %d", MigrationID, *migrationID)
	}
	us, err := users.Of(s.l).All(ctx)
	if err != nil {
		return DomainDataSnapshot{}, err
	}
	snap := DomainDataSnapshot{Identity: s.NodeIdentity(), At: at, MigrationID: MigrationID, CreatedAt: now}
	for _, u := range us {
		snap.Users = append(snap.Users, ParticipantUser{Name: u.Name, Party: u.Party, IsAdmin: u.IsAdmin})
	}
	return snap, nil
}
