package store

// Internals that the tests of package store_test check.
var (
	ReadSendsQuery = readSendsQuery
	ClaimSendsSQL  = claimSendsSQL
	WriteSQL       = writeSQL
)
