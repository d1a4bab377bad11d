package identity

import (
	"context"
	"net/http"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger/userrights"
	"github.com/ccwallet/ccwallet/ledgerapi/internal/canton"
)

// User management: grant and revoke rights, update (deactivate) and
// delete users; admin only. The rules are the ledger's (userrights.go).

// rightsRequest is GrantUserRightsRequest and RevokeUserRightsRequest.
type rightsRequest struct {
	UserID             string    `json:"userId"`
	Rights             []rightIn `json:"rights"`
	IdentityProviderID string    `json:"identityProviderId"`
}

// rightIn is a Right a request sends.
type rightIn struct {
	Kind map[string]struct {
		Value struct {
			Party string `json:"party"`
		} `json:"value"`
	} `json:"kind"`
}

// decodeRights reads a rights request for the user in the path: the body's
// userId must be the path's, as Canton requires.
func decodeRights(r *http.Request, c *canton.Caller) (string, []userrights.Right, error) {
	if err := c.RequireAdmin(); err != nil {
		return "", nil, err
	}
	var req rightsRequest
	if err := canton.Decode(r, &req); err != nil {
		return "", nil, err
	}
	id := r.PathValue("userId")
	if req.UserID != id {
		return "", nil, canton.InvalidArgument("userId %q in the body is not the path's user %q", req.UserID, id)
	}
	if req.IdentityProviderID != "" {
		return "", nil, canton.InvalidArgument("identityProviderId: only the default identity provider (\"\") is supported")
	}
	if len(req.Rights) > userrights.MaxUserRights {
		return "", nil, canton.InvalidArgument("rights: at most %d at once", userrights.MaxUserRights)
	}
	rs := make([]userrights.Right, 0, len(req.Rights))
	for i, rt := range req.Rights {
		if len(rt.Kind) != 1 {
			return "", nil, canton.InvalidArgument("rights[%d].kind: give exactly one kind of right", i)
		}
		for kind, v := range rt.Kind {
			rs = append(rs, userrights.Right{Kind: kind, Party: coin.PartyID(v.Value.Party)})
		}
	}
	return id, rs, nil
}

// GrantRights is POST /v2/users/{id}/rights.
func (s *Service) GrantRights(w http.ResponseWriter, r *http.Request, c *canton.Caller) error {
	return s.changeRights(w, r, c, s.w.UserRights.GrantRights, "newlyGrantedRights")
}

// RevokeRights is PATCH /v2/users/{id}/rights.
func (s *Service) RevokeRights(w http.ResponseWriter, r *http.Request, c *canton.Caller) error {
	return s.changeRights(w, r, c, s.w.UserRights.RevokeRights, "newlyRevokedRights")
}

// changeRights runs a grant or a revocation, answering the rights it
// changed under key.
func (s *Service) changeRights(w http.ResponseWriter, r *http.Request, c *canton.Caller,
	change func(context.Context, string, []userrights.Right) ([]userrights.Right, error), key string) error {
	id, rs, err := decodeRights(r, c)
	if err != nil {
		return err
	}
	changed, err := change(r.Context(), id, rs)
	if err != nil {
		return err
	}
	return canton.WriteJSON(w, map[string][]right{key: rightsDTO(changed)})
}

// UpdateUser is PATCH /v2/users/{id}: isDeactivated (and primaryParty,
// which a wallet user cannot change: it is its wallet's party), as the
// update mask says.
func (s *Service) UpdateUser(w http.ResponseWriter, r *http.Request, c *canton.Caller) error {
	if err := c.RequireAdmin(); err != nil {
		return err
	}
	var req struct {
		User       *userDTO `json:"user"`
		UpdateMask *struct {
			Paths []string `json:"paths"`
		} `json:"updateMask"`
	}
	if err := canton.Decode(r, &req); err != nil {
		return err
	}
	id := r.PathValue("userId")
	if req.User == nil {
		return canton.Err(canton.CodeMissingField, "user: the user to update is required")
	}
	if req.User.ID != id {
		return canton.InvalidArgument("user.id %q in the body is not the path's user %q", req.User.ID, id)
	}
	if req.UpdateMask == nil || len(req.UpdateMask.Paths) == 0 {
		return canton.Err(canton.CodeMissingField, "updateMask.paths: name the fields to update (is_deactivated, primary_party)")
	}
	if len(req.UpdateMask.Paths) > 8 {
		return canton.InvalidArgument("updateMask.paths: at most 8 paths")
	}
	u, err := s.lookupUser(r, c)
	if err != nil {
		return err
	}
	for _, path := range req.UpdateMask.Paths {
		switch path {
		case "is_deactivated", "isDeactivated":
			if req.User.IsDeactivated && id == c.User.Name {
				return canton.InvalidArgument("user %q cannot deactivate itself", id)
			}
			if err := s.w.UserRights.SetDeactivated(r.Context(), id, req.User.IsDeactivated); err != nil {
				return err
			}
		case "primary_party", "primaryParty":
			if req.User.PrimaryParty != u.User.Party {
				return canton.InvalidArgument("user.primaryParty: user %q is the wallet user of party %s, which cannot change", id, u.User.Party)
			}
		case "metadata", "metadata.annotations":
			// Nothing is stored: every user's metadata is empty.
		default:
			return canton.InvalidArgument("updateMask.paths: %q cannot be updated; give is_deactivated or primary_party", path)
		}
	}
	if u, err = s.lookupUser(r, c); err != nil {
		return err
	}
	return canton.WriteJSON(w, map[string]userDTO{"user": userOf(u.User, u.Rights)})
}

// DeleteUser is DELETE /v2/users/{id}: the wallet user is offboarded.
func (s *Service) DeleteUser(w http.ResponseWriter, r *http.Request, c *canton.Caller) error {
	if err := c.RequireAdmin(); err != nil {
		return err
	}
	id := r.PathValue("userId")
	if id == c.User.Name {
		return canton.InvalidArgument("user %q cannot delete itself", id)
	}
	if err := s.w.UserRights.DeleteUser(r.Context(), id); err != nil {
		return err
	}
	return canton.WriteJSON(w, struct{}{})
}
