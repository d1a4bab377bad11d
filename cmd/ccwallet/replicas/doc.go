// Package replicas keeps in the database what the wallet's replicas share
// beside the ledger: the web wallet's login sessions (web.SessionStore),
// so every replica honours a login and a logout, and the automations' job
// leases (jobs.Leaser), so one replica at a time runs a job. Neither is a
// rule of the coin, so neither goes through the ledger: cmd/ccwallet wires
// them from the store to web and jobs, which import no store themselves.
package replicas
