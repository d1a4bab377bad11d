package store

// Internals that the tests of package store_test check.
var (
	ReadSendsQuery = readSendsQuery
	PlanSettings   = planSettings
	WriteSQL       = writeSQL
)
