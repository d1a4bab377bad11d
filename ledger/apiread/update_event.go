package apiread

import (
	"slices"
	"strings"
	"time"

	"github.com/ccwallet/ccwallet/coin"
)

// UpdateEvent is one committed update as a developer watches it: the
// log's row with the parties it concerns and the templates of the
// contracts (and holdings) it created or archived.
type UpdateEvent struct {
	Offset    int64
	UpdateID  string
	Kind      string
	Submitter string
	Round     coin.Round
	Time      time.Time
	// ActedBy is the admin who made it acting as another party on a
	// development network (impersonation.ActingAs), "" otherwise.
	ActedBy string
	// Parties are the stakeholders: the parties of its history rows, the
	// stakeholders of its contracts, the owners of its holdings and the
	// submitter; sorted.
	Parties []coin.PartyID
	// Templates are the template IDs it created or archived; sorted.
	Templates []string
}

// MaxUpdateEvents bounds one read of the update stream (UpdatesAfter).
const MaxUpdateEvents = 500

// Matches is the update stream's filter: party, if not empty, is a
// stakeholder (Concerns) and template, if not empty, one it created or
// archived (HasTemplate).
func (e *UpdateEvent) Matches(party coin.PartyID, template string) bool {
	return (party == "" || e.Concerns(party)) && (template == "" || e.HasTemplate(template))
}

// Concerns says whether party is a stakeholder of the update.
func (e *UpdateEvent) Concerns(party coin.PartyID) bool {
	_, ok := slices.BinarySearch(e.Parties, party)
	return ok
}

// HasTemplate says whether the update created or archived a contract of
// template t: its full ID ("#splice-amulet:Splice.Amulet:Amulet") or a
// tail after a colon ("Splice.Amulet:Amulet", "Amulet").
func (e *UpdateEvent) HasTemplate(t string) bool {
	for _, have := range e.Templates {
		if have == t || strings.HasSuffix(have, ":"+t) {
			return true
		}
	}
	return false
}
