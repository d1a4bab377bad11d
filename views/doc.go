// Package views owns the web wallet's HTML: the templ components (*.templ,
// compiled to the committed *_templ.go) and their view models (models.go
// and beside each page). It is pure: a view model in, HTML out; it never
// reads the store or the ledger's state, and the handler fills in what a
// page shows, party names included (partynames.go), before it renders
// once.
package views
