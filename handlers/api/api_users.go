package api

import (
	"net/http"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger/users"
	"github.com/ccwallet/ccwallet/web"
)

// getValidatorUserInfo answers GET /v0/validator-user (no auth).
func (h *Handler) getValidatorUserInfo(w http.ResponseWriter, r *http.Request) error {
	name := ""
	all, err := users.Of(h.l).All(r.Context())
	if err != nil {
		return err
	}
	for _, u := range all {
		if u.Party == h.l.Operator() && u.IsAdmin {
			name = u.Name
			break
		}
	}
	featured, err := h.w.Featured.IsFeatured(r.Context(), h.l.Operator())
	if err != nil {
		return err
	}
	return web.WriteJSON(w, http.StatusOK, getValidatorUserInfoResponse{PartyID: string(h.l.Operator()), UserName: name, Featured: featured})
}

// register answers POST /v0/register: the caller onboards itself.
func (h *Handler) register(w http.ResponseWriter, r *http.Request) error {
	if r.ContentLength > 0 {
		var ignored map[string]any
		if err := web.DecodeJSON(r, &ignored); err != nil {
			return err
		}
	}
	p, err := users.Of(h.l).Onboard(r.Context(), subject(r.Context()), "")
	if err != nil {
		return err
	}
	return web.WriteJSON(w, http.StatusOK, registrationResponse{PartyID: string(p)})
}

// onboardUser answers POST /v0/admin/users.
func (h validatorAdmin) onboardUser(w http.ResponseWriter, r *http.Request) error {
	var req onboardUserRequest
	if err := web.DecodeJSON(r, &req); err != nil {
		return err
	}
	if trimmed(req.Name) == "" {
		return badRequest("name: must not be empty")
	}
	var party coin.PartyID
	if req.PartyID != "" {
		p, err := coin.ParsePartyID(req.PartyID)
		if err != nil {
			return err
		}
		party = p
	}
	p, err := users.Of(h.l).Onboard(r.Context(), req.Name, party)
	if err != nil {
		return err
	}
	return web.WriteJSON(w, http.StatusOK, onboardUserResponse{PartyID: string(p)})
}

// listUsers answers GET /v0/admin/users.
func (h validatorAdmin) listUsers(w http.ResponseWriter, r *http.Request) error {
	all, err := users.Of(h.l).All(r.Context())
	if err != nil {
		return err
	}
	resp := listUsersResponse{Usernames: make([]string, 0, len(all))}
	for _, u := range all {
		resp.Usernames = append(resp.Usernames, u.Name)
	}
	return web.WriteJSON(w, http.StatusOK, resp)
}

// offboardUser answers POST /v0/admin/users/offboard?username=.
func (h validatorAdmin) offboardUser(w http.ResponseWriter, r *http.Request) error {
	name := r.URL.Query().Get("username")
	if trimmed(name) == "" {
		return badRequest("username: query parameter is required")
	}
	if err := h.w.UserRights.Offboard(r.Context(), name); err != nil {
		return err
	}
	w.WriteHeader(http.StatusOK)
	return nil
}
