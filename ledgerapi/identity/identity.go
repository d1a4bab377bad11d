// Package identity serves the Ledger API's identity routes: the version,
// the participant id, the packages, parties (local ones allocated, and
// external ones by generate-topology and allocate) and users with their
// rights (created, listed, granted, revoked, deactivated, deleted). It
// decodes, checks the caller's rights (canton.Caller), calls the ledger's
// users, rights and external parties, and encodes; ledgerapi's route
// table names its handlers.
package identity

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/ccwallet/ccwallet/ledger/apiread"
	"github.com/ccwallet/ccwallet/ledger/fault"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/userrights"
	"github.com/ccwallet/ccwallet/ledger/users"
	"github.com/ccwallet/ccwallet/ledger/workflows"
	"github.com/ccwallet/ccwallet/ledgerapi/internal/canton"
	"github.com/ccwallet/ccwallet/ledgerapi/internal/damlid"
)

// Identity: version, parties, participant id, users and their rights. A
// ledger user is a wallet user: it acts as its party (CanActAs), and the
// wallet admins (validatorWalletUsers) are ParticipantAdmin.

// Version is the Ledger API version the server answers as (Canton's,
// as bundled with Splice 0.4.15).
const Version = "3.3.0"

// Service serves the identity routes of one ledger's Ledger API.
type Service struct {
	l *ledger.Ledger
	w *workflows.Set
}

// New is the identity routes of l with its workflows w.
func New(l *ledger.Ledger, w *workflows.Set) *Service {
	return &Service{l: l, w: w}
}

// maxUsersPage bounds a page of users.
const maxUsersPage = 1000

type objectMeta struct {
	ResourceVersion string            `json:"resourceVersion"`
	Annotations     map[string]string `json:"annotations"`
}

var emptyMeta = objectMeta{Annotations: map[string]string{}}

func (s *Service) GetVersion(w http.ResponseWriter, r *http.Request, _ *canton.Caller) error {
	type userMgmt struct {
		Supported        bool `json:"supported"`
		MaxRightsPerUser int  `json:"maxRightsPerUser"`
		MaxUsersPageSize int  `json:"maxUsersPageSize"`
	}
	type partyMgmt struct {
		MaxPartiesPageSize int `json:"maxPartiesPageSize"`
	}
	type features struct {
		UserManagement  userMgmt  `json:"userManagement"`
		PartyManagement partyMgmt `json:"partyManagement"`
	}
	return canton.WriteJSON(w, struct {
		Version  string   `json:"version"`
		Features features `json:"features"`
	}{Version, features{userMgmt{true, userrights.MaxUserRights, maxUsersPage}, partyMgmt{apiread.MaxPartiesPage}}})
}

func (s *Service) GetParticipantID(w http.ResponseWriter, r *http.Request, _ *canton.Caller) error {
	return canton.WriteJSON(w, map[string]string{"participantId": s.l.ParticipantID()})
}

type partyDetails struct {
	Party              coin.PartyID `json:"party"`
	IsLocal            bool         `json:"isLocal"`
	LocalMetadata      objectMeta   `json:"localMetadata"`
	IdentityProviderID string       `json:"identityProviderId"`
}

// pageSize reads the pageSize query parameter (0 when absent).
func pageSize(r *http.Request) (int, error) {
	v := r.URL.Query().Get("pageSize")
	if v == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0, canton.InvalidArgument("pageSize: want a non-negative whole number, not %q", v)
	}
	return n, nil
}

func (s *Service) ListParties(w http.ResponseWriter, r *http.Request, c *canton.Caller) error {
	if err := c.RequireAdmin(); err != nil {
		return err
	}
	n, err := pageSize(r)
	if err != nil {
		return err
	}
	if n == 0 || n > apiread.MaxPartiesPage {
		n = apiread.MaxPartiesPage
	}
	ps, err := s.w.APIRead.Parties(r.Context(), coin.PartyID(r.URL.Query().Get("pageToken")), n)
	if err != nil {
		return err
	}
	out := struct {
		PartyDetails  []partyDetails `json:"partyDetails"`
		NextPageToken string         `json:"nextPageToken"`
	}{PartyDetails: make([]partyDetails, len(ps))}
	for i, p := range ps {
		// Every party the ledger knows is hosted on this node.
		out.PartyDetails[i] = partyDetails{Party: p.Party, IsLocal: true, LocalMetadata: emptyMeta}
	}
	if len(ps) == n {
		out.NextPageToken = string(ps[len(ps)-1].Party)
	}
	return canton.WriteJSON(w, out)
}

func (s *Service) AllocateParty(w http.ResponseWriter, r *http.Request, c *canton.Caller) error {
	if err := c.RequireAdmin(); err != nil {
		return err
	}
	var req struct {
		PartyIDHint        string `json:"partyIdHint"`
		IdentityProviderID string `json:"identityProviderId"`
	}
	if err := canton.Decode(r, &req); err != nil {
		return err
	}
	if req.IdentityProviderID != "" {
		return canton.InvalidArgument("identityProviderId: only the default identity provider (\"\") is supported")
	}
	p, err := users.Of(s.l).AllocateParty(r.Context(), req.PartyIDHint)
	if errors.Is(err, fault.ErrConflict) {
		return canton.Err(canton.CodePartyAlreadyExists, "%s", err.Error())
	}
	if err != nil {
		return err
	}
	return canton.WriteJSON(w, map[string]partyDetails{"partyDetails": {Party: p, IsLocal: true, LocalMetadata: emptyMeta}})
}

type userDTO struct {
	ID                 string       `json:"id"`
	PrimaryParty       coin.PartyID `json:"primaryParty"`
	IsDeactivated      bool         `json:"isDeactivated"`
	Metadata           objectMeta   `json:"metadata"`
	IdentityProviderID string       `json:"identityProviderId"`
}

func userOf(u ledger.UserInfo, rs userrights.UserRights) userDTO {
	return userDTO{ID: u.Name, PrimaryParty: u.Party, IsDeactivated: rs.Deactivated, Metadata: emptyMeta}
}

// right is a user right in the JSON API's encoding:
// {"kind": {"CanActAs": {"value": {"party": p}}}}.
type right struct {
	Kind map[string]rightValue `json:"kind"`
}

type rightValue struct {
	Value map[string]string `json:"value"`
}

func rightsDTO(rs []userrights.Right) []right {
	out := []right{}
	for _, r := range rs {
		v := map[string]string{}
		if r.Party != "" {
			v["party"] = string(r.Party)
		}
		out = append(out, right{Kind: map[string]rightValue{r.Kind: {Value: v}}})
	}
	return out
}

func (s *Service) ListUsers(w http.ResponseWriter, r *http.Request, c *canton.Caller) error {
	if err := c.RequireAdmin(); err != nil {
		return err
	}
	n, err := pageSize(r)
	if err != nil {
		return err
	}
	if n == 0 || n > maxUsersPage {
		n = maxUsersPage
	}
	us, err := users.Of(s.l).All(r.Context())
	if err != nil {
		return err
	}
	token := r.URL.Query().Get("pageToken")
	out := struct {
		Users         []userDTO `json:"users"`
		NextPageToken string    `json:"nextPageToken"`
	}{Users: []userDTO{}}
	for _, u := range us { // by name
		if u.Name <= token {
			continue
		}
		if len(out.Users) == n {
			out.NextPageToken = out.Users[n-1].ID
			break
		}
		rs, err := s.w.UserRights.RightsOf(r.Context(), u)
		if err != nil {
			return err
		}
		out.Users = append(out.Users, userOf(u, rs))
	}
	return canton.WriteJSON(w, out)
}

// lookupUser returns the user named in the path, for an admin or the user
// itself.
func (s *Service) lookupUser(r *http.Request, c *canton.Caller) (*canton.Caller, error) {
	id := r.PathValue("userId")
	if id == c.User.Name && c.Actor != "" && len(c.ActAs) == 1 {
		// An impersonation token is its party's user, and only that
		// (devnet.IsAdminAs): it reads the party as its primary party
		// and its act-as right alone, never the admin's own record.
		self := *c
		self.User.Party = c.ActAs[0]
		return &self, nil
	}
	if id != c.User.Name {
		if err := c.RequireAdmin(); err != nil {
			return nil, err
		}
	}
	u, err := users.Of(s.l).Get(r.Context(), id)
	if err != nil {
		return nil, err
	}
	if !u.Onboarded && !u.IsAdmin {
		return nil, canton.Err(canton.CodeUserNotFound, "user %q not found", id)
	}
	rs, err := s.w.UserRights.RightsOf(r.Context(), u)
	if err != nil {
		return nil, err
	}
	return canton.CallerOf(u, rs), nil
}

func (s *Service) GetUser(w http.ResponseWriter, r *http.Request, c *canton.Caller) error {
	u, err := s.lookupUser(r, c)
	if err != nil {
		return err
	}
	return canton.WriteJSON(w, map[string]userDTO{"user": userOf(u.User, u.Rights)})
}

func (s *Service) ListUserRights(w http.ResponseWriter, r *http.Request, c *canton.Caller) error {
	u, err := s.lookupUser(r, c)
	if err != nil {
		return err
	}
	return canton.WriteJSON(w, map[string][]right{"rights": rightsDTO(u.Rights.Rights)})
}

// CreateUser onboards a wallet user: a ledger user here always acts as one
// party, its primary party (allocated when neither it nor a CanActAs
// right names one), and holds the party-less rights the request gives
// (ParticipantAdmin, CanReadAsAnyParty, CanExecuteAsAnyParty, as the
// wallet SDK's createUser grants), all in one change.
func (s *Service) CreateUser(w http.ResponseWriter, r *http.Request, c *canton.Caller) error {
	if err := c.RequireAdmin(); err != nil {
		return err
	}
	var req struct {
		User   *userDTO  `json:"user"`
		Rights []rightIn `json:"rights"`
	}
	if err := canton.Decode(r, &req); err != nil {
		return err
	}
	if req.User == nil || req.User.ID == "" {
		return canton.Err(canton.CodeMissingField, "user.id: the user to create must have an id")
	}
	if req.User.IdentityProviderID != "" {
		return canton.InvalidArgument("user.identityProviderId: only the default identity provider (\"\") is supported")
	}
	if req.User.IsDeactivated {
		return canton.InvalidArgument("user.isDeactivated: a user is created active")
	}
	if len(req.Rights) > userrights.MaxUserRights {
		return canton.InvalidArgument("rights: at most %d at once", userrights.MaxUserRights)
	}
	party := string(req.User.PrimaryParty)
	var extra []userrights.Right
	for i, rt := range req.Rights {
		if len(rt.Kind) != 1 {
			return canton.InvalidArgument("rights[%d].kind: give exactly one kind of right", i)
		}
		for kind, v := range rt.Kind {
			switch kind {
			case "CanActAs", "CanReadAs":
				if party == "" {
					party = v.Value.Party
				}
				if v.Value.Party != party {
					return canton.InvalidArgument("rights[%d]: a user acts and reads as its primary party %s only, not %s", i, party, v.Value.Party)
				}
			default:
				extra = append(extra, userrights.Right{Kind: kind, Party: coin.PartyID(v.Value.Party)})
			}
		}
	}
	var p coin.PartyID
	if party != "" {
		var err error
		if p, err = canton.ParseParty("user.primaryParty", party); err != nil {
			return err
		}
		if err := s.l.KnownParty(r.Context(), p); err != nil {
			return canton.Err(canton.CodePartyNotKnown, "party %s is not known to this participant; allocate it first", p)
		}
	}
	existing, err := users.Of(s.l).Get(r.Context(), req.User.ID)
	if err != nil {
		return err
	}
	if existing.Onboarded {
		return canton.Err(canton.CodeUserAlreadyExists, "user %q already exists", req.User.ID)
	}
	if _, err := s.w.UserRights.Create(r.Context(), req.User.ID, p, extra); err != nil {
		return err
	}
	u, err := users.Of(s.l).Get(r.Context(), req.User.ID)
	if err != nil {
		return err
	}
	return canton.WriteJSON(w, map[string]userDTO{"user": userOf(u, userrights.UserRights{})})
}

// ListPackages is GET /v2/packages: the packages of the templates and
// interfaces this ledger knows, by id.
func (s *Service) ListPackages(w http.ResponseWriter, r *http.Request, _ *canton.Caller) error {
	return canton.WriteJSON(w, map[string][]string{"packageIds": damlid.PackageIDs()})
}

// GetParty is GET /v2/parties/{party}: the party's details for an admin
// or a user that may read as it; a party the ledger does not know is left
// out, as Canton does.
func (s *Service) GetParty(w http.ResponseWriter, r *http.Request, c *canton.Caller) error {
	p, err := canton.ParseParty("party", r.PathValue("party"))
	if err != nil {
		return err
	}
	if !c.Admin {
		if err := c.RequireRead(p); err != nil {
			return err
		}
	}
	out := []partyDetails{}
	if err := s.l.KnownParty(r.Context(), p); err == nil {
		out = append(out, partyDetails{Party: p, IsLocal: true, LocalMetadata: emptyMeta})
	} else if !errors.Is(err, fault.ErrNotFound) {
		return err
	}
	return canton.WriteJSON(w, map[string][]partyDetails{"partyDetails": out})
}
