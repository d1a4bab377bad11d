package ui

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/ccwallet/ccwallet/ledger/users"
	"github.com/ccwallet/ccwallet/views"
	"github.com/ccwallet/ccwallet/web"
)

// NetworkSetting is one configuration key that concerns a real
// multi-validator network (sponsor, scan, sequencer modes, migration), as
// the admin page shows it.
type NetworkSetting struct {
	// Key is the values-file key; Env the environment variable that sets
	// it too, if any.
	Key, Env string
	// Value is the effective value, secrets masked; "" when unset.
	Value string
	// Ignored is true when the embedded network does not use the key: it
	// is accepted and validated for a real network, and has no effect.
	Ignored bool
}

// uiAdmin serves GET /admin (wallet admins only).
func (h adminPages) uiAdmin(w http.ResponseWriter, r *http.Request, s *web.Session) error {
	m, err := h.adminModel(r.Context(), s)
	if err != nil {
		return err
	}
	h.named(r.Context(), &m)
	return render(w, r, http.StatusOK, views.AdminPage(m))
}

func (h adminPages) adminModel(ctx context.Context, s *web.Session) (views.Admin, error) {
	all, err := users.Of(h.l).All(ctx)
	if err != nil {
		return views.Admin{}, err
	}
	m := views.Admin{Page: h.page(s, "Admin", "admin"), Operator: views.P(h.l.Operator()), Form: views.OnboardForm{CSRF: s.CSRF}}
	for _, u := range all {
		m.Users = append(m.Users, views.UserRow{Name: u.Name, Party: views.P(u.Party), Admin: u.IsAdmin, Offboardable: u.Party != h.l.Operator()})
	}
	if h.jobs != nil {
		for _, j := range h.jobs() {
			row := views.AutomationRow{Name: j.Name, Schedule: j.Schedule, About: j.About, LastRun: timeOf(j.LastRun), NextRun: timeOf(j.NextRun),
				LastDuration: "—", LastError: j.LastError}
			if j.LastRun != nil {
				row.LastDuration = (time.Duration(j.LastDurationMS) * time.Millisecond).String()
			}
			m.Automations = append(m.Automations, row)
		}
	} else if h.ui.Automations != nil {
		as, err := h.ui.Automations.Automations(ctx)
		if err != nil {
			return views.Admin{}, err
		}
		for _, a := range as {
			m.Automations = append(m.Automations, views.AutomationRow{
				Name: a.Name, LastRun: a.LastRun, NextRun: a.NextRun, LastDuration: "—", LastError: a.LastError,
			})
		}
	}
	m.Warnings = h.warnings
	for _, n := range h.net {
		m.Network = append(m.Network, views.NetworkRow{Key: n.Key, Env: n.Env, Value: n.Value, Ignored: n.Ignored})
	}
	merges, err := h.w.Delegations.PendingMerges(ctx)
	if err != nil {
		return views.Admin{}, err
	}
	for _, pm := range merges {
		m.Merges = append(m.Merges, views.MergeRow{Party: views.P(pm.Party), Holdings: pm.Holdings, Target: pm.Target})
	}
	return m, nil
}

// timeOf is an optional time, zero for none.
func timeOf(t *time.Time) time.Time {
	if t == nil {
		return time.Time{}
	}
	return *t
}

// uiAdminOnboard serves POST /admin/users: onboard a user by name.
func (h adminPages) uiAdminOnboard(w http.ResponseWriter, r *http.Request, s *web.Session) error {
	name := strings.TrimSpace(r.PostFormValue("name"))
	res, perr := users.Of(h.l).OnboardUser(r.Context(), name, "")
	if perr != nil {
		msg, ok := inline(perr)
		if !ok {
			return perr
		}
		m, err := h.adminModel(r.Context(), s)
		if err != nil {
			return err
		}
		m.Form.Name, m.Form.Error = name, msg
		h.named(r.Context(), &m)
		return render(w, r, http.StatusUnprocessableEntity, views.AdminPage(m))
	}
	if !res.Created {
		done(w, r, "/admin", "user-already-onboarded")
		return nil
	}
	done(w, r, "/admin", "user-onboarded")
	return nil
}

// uiAdminOffboard serves POST /admin/users/offboard (form field name): the
// ledger's Offboard, as POST /v0/admin/users/offboard. The page asks to
// confirm first: with confirm=yes it offboards, without it shows what
// offboarding does.
func (h adminPages) uiAdminOffboard(w http.ResponseWriter, r *http.Request, s *web.Session) error {
	name := strings.TrimSpace(r.PostFormValue("name"))
	if r.PostFormValue("confirm") != "yes" {
		m, err := h.adminModel(r.Context(), s)
		if err != nil {
			return err
		}
		m.Offboard = &views.OffboardConfirm{CSRF: s.CSRF, Name: name}
		h.named(r.Context(), &m)
		return render(w, r, http.StatusOK, views.AdminPage(m))
	}
	if err := h.w.UserRights.Offboard(r.Context(), name); err != nil {
		msg, ok := inline(err)
		if !ok {
			return err
		}
		// The page after the attempt, so it lists the users as they are.
		m, merr := h.adminModel(r.Context(), s)
		if merr != nil {
			return merr
		}
		m.OffboardError = msg
		h.named(r.Context(), &m)
		return render(w, r, http.StatusUnprocessableEntity, views.AdminPage(m))
	}
	done(w, r, "/admin", "user-offboarded")
	return nil
}
