package api

import (
	"encoding/json"
	"net/http"
	"strconv"
	"time"

	ledgerscan "github.com/ccwallet/ccwallet/ledger/scan"

	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/web"
)

// The remaining wallet operations (featured app rights) and the
// validator's support endpoints
// (participant identities, synchronizer connection, data snapshot).

type selfGrantFeaturedAppRightResponse struct {
	ContractID string `json:"contract_id"`
}

// selfGrantFeatureAppRight answers POST
// /v0/wallet/self-grant-feature-app-right: the caller's own party becomes
// a featured app provider. The request body is an empty object (or none).
func (h *Handler) selfGrantFeatureAppRight(w http.ResponseWriter, r *http.Request) error {
	p, err := h.callerParty(r)
	if err != nil {
		return err
	}
	cid, err := h.w.Featured.SelfGrant(r.Context(), p)
	if err != nil {
		return err
	}
	return web.WriteJSON(w, http.StatusOK, selfGrantFeaturedAppRightResponse{ContractID: string(cid)})
}

// cancelFeaturedAppRights answers DELETE /v0/wallet/cancel-featured-app-rights:
// the caller's own party stops being featured (200 also when it was not).
func (h *Handler) cancelFeaturedAppRights(w http.ResponseWriter, r *http.Request) error {
	p, err := h.callerParty(r)
	if err != nil {
		return err
	}
	if _, err := h.w.Featured.Cancel(r.Context(), p); err != nil {
		return err
	}
	return web.WriteJSON(w, http.StatusOK, struct{}{})
}

// nodeKeyDTO is a NodeKey of common-internal.yaml (the KeyPair shape).
type nodeKeyDTO struct {
	KeyPair string `json:"keyPair"`
	Name    string `json:"name,omitempty"`
}

type nodeIdentitiesDumpDTO struct {
	ID                      string       `json:"id"`
	Keys                    []nodeKeyDTO `json:"keys"`
	AuthorizedStoreSnapshot string       `json:"authorizedStoreSnapshot"`
	Version                 string       `json:"version,omitempty"`
}

// nodeIdentities is the participant's identities dump: its ID and no keys
// or topology snapshot, which the embedded participant does not have (its
// parties' namespace is the ledger's, kept in its database).
func nodeIdentities(id ledgerscan.NodeIdentity) nodeIdentitiesDumpDTO {
	return nodeIdentitiesDumpDTO{ID: id.ParticipantID, Keys: []nodeKeyDTO{}, AuthorizedStoreSnapshot: ""}
}

// dumpParticipantIdentities answers GET /v0/admin/participant/identities.
func (h validatorAdmin) dumpParticipantIdentities(w http.ResponseWriter, _ *http.Request) error {
	return web.WriteJSON(w, http.StatusOK, nodeIdentities(h.w.Scan.NodeIdentity()))
}

type sequencerAliasToConnectionsDTO struct {
	SequencerAlias    string   `json:"sequencer_alias"`
	Endpoints         []string `json:"endpoints"`
	TransportSecurity bool     `json:"transport_security"`
}

type sequencerConnectionsDTO struct {
	Connections                    []sequencerAliasToConnectionsDTO `json:"connections"`
	SequencerTrustThreshold        int32                            `json:"sequencer_trust_threshold"`
	SubmissionRequestAmplification struct {
		Factor          float64 `json:"factor"`
		PatienceSeconds float64 `json:"patience_seconds"`
	} `json:"submission_request_amplification"`
}

// getDecentralizedSynchronizerConnectionConfig answers GET
// /v0/admin/participant/global-domain-connection-config. The synchronizer
// is embedded in this process: one sequencer, named after the
// synchronizer, with no network endpoints to connect to.
func (h validatorAdmin) getDecentralizedSynchronizerConnectionConfig(w http.ResponseWriter, _ *http.Request) error {
	var c sequencerConnectionsDTO
	c.Connections = []sequencerAliasToConnectionsDTO{{SequencerAlias: h.l.SynchronizerID(), Endpoints: []string{}}}
	c.SequencerTrustThreshold = 1
	c.SubmissionRequestAmplification.Factor = 1
	return web.WriteJSON(w, http.StatusOK, map[string]any{"sequencer_connections": c})
}

type participantUserRightDTO struct {
	Kind  string `json:"kind"`
	Party string `json:"party,omitempty"`
}

type participantUserDTO struct {
	ID            string                    `json:"id"`
	PrimaryParty  string                    `json:"primaryParty,omitempty"`
	Rights        []participantUserRightDTO `json:"rights"`
	IsDeactivated bool                      `json:"isDeactivated"`
	Annotations   []json.RawMessage         `json:"annotations"`
}

type domainMigrationDumpDTO struct {
	Participant      nodeIdentitiesDumpDTO `json:"participant"`
	ParticipantUsers struct {
		IdentityProviders []json.RawMessage    `json:"identityProviders"`
		Users             []participantUserDTO `json:"users"`
	} `json:"participant_users"`
	AcsSnapshot  string            `json:"acs_snapshot"`
	AcsTimestamp string            `json:"acs_timestamp"`
	Dars         []json.RawMessage `json:"dars"`
	MigrationID  int64             `json:"migration_id"`
	DomainID     string            `json:"domain_id"`
	CreatedAt    string            `json:"created_at"`
}

// getValidatorDomainDataSnapshot answers GET
// /v0/admin/domain/data-snapshot?timestamp=&migration_id=&force=: the
// participant, its users and their rights. acs_snapshot is empty and dars
// is [] (ledger.DomainDataSnapshot says why).
func (h validatorAdmin) getValidatorDomainDataSnapshot(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	ts := trimmed(q.Get("timestamp"))
	if ts == "" {
		return badRequest("timestamp: query parameter is required (ISO-8601 in UTC, e.g. 2026-01-02T03:04:05.000Z)")
	}
	if len(ts) > 64 {
		return badRequest("timestamp: at most 64 characters")
	}
	at, err := time.Parse(time.RFC3339Nano, ts)
	if err != nil {
		return badRequest("timestamp: not an ISO-8601 time in UTC like 2026-01-02T03:04:05.000Z")
	}
	var mig *int64
	if s := q.Get("migration_id"); s != "" {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return badRequest("migration_id: not an integer")
		}
		mig = &n
	}
	if f := q.Get("force"); f != "" && f != "true" && f != "false" {
		return badRequest("force: must be true or false")
	}
	s, err := h.w.Scan.DomainDataSnapshot(r.Context(), at, mig)
	if err != nil {
		return err
	}
	var d domainMigrationDumpDTO
	d.Participant = nodeIdentities(s.Identity)
	d.ParticipantUsers.IdentityProviders = []json.RawMessage{}
	d.ParticipantUsers.Users = []participantUserDTO{}
	for _, u := range s.Users {
		rights := []participantUserRightDTO{{Kind: "canActAs", Party: string(u.Party)}, {Kind: "canReadAs", Party: string(u.Party)}}
		if u.IsAdmin {
			rights = append(rights, participantUserRightDTO{Kind: "participantAdmin"})
		}
		d.ParticipantUsers.Users = append(d.ParticipantUsers.Users, participantUserDTO{
			ID: u.Name, PrimaryParty: string(u.Party), Rights: rights, Annotations: []json.RawMessage{},
		})
	}
	d.AcsTimestamp = ledger.FormatTime(s.At)
	d.Dars = []json.RawMessage{}
	d.MigrationID = s.MigrationID
	d.DomainID = s.Identity.SynchronizerID
	d.CreatedAt = ledger.FormatTime(s.CreatedAt)
	return web.WriteJSON(w, http.StatusOK, map[string]any{"data_snapshot": d, "migration_id": s.MigrationID})
}
