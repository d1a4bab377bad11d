package shared

import "time"

// JobStatus is one background job as GET /v0/admin/jobs shows it. cmd
// fills it from the scheduler (package jobs), so the handlers need not import
// the scheduler.
type JobStatus struct {
	Name           string     `json:"name"`
	Schedule       string     `json:"schedule"`
	About          string     `json:"about,omitempty"`
	LastRun        *time.Time `json:"last_run"`
	NextRun        *time.Time `json:"next_run"`
	LastDurationMS int64      `json:"last_duration_ms"`
	LastError      string     `json:"last_error"`
	Runs           int64      `json:"runs"`
	Failures       int64      `json:"failures"`
	Skipped        int64      `json:"skipped"`
	Running        bool       `json:"running"`
}
