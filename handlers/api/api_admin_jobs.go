package api

import (
	"net/http"

	"github.com/ccwallet/ccwallet/handlers/shared"
	"github.com/ccwallet/ccwallet/web"
)

// JobStatus is one background job as GET /v0/admin/jobs shows it
// (shared.JobStatus).
type JobStatus = shared.JobStatus

// listJobs answers GET /v0/admin/jobs: a list, one object per job (empty
// when this replica runs no automation).
func (h validatorAdmin) listJobs(w http.ResponseWriter, r *http.Request) error {
	out := []JobStatus{}
	if h.jobs != nil {
		out = append(out, h.jobs()...)
	}
	return web.WriteJSON(w, http.StatusOK, out)
}
