package pgbatch

import (
	"reflect"

	"github.com/uptrace/bun/schema"
)

// The writes of every table, built afresh (writeOf keeps the variants
// the writers use).
var (
	writeSQL     = buildWriteSQL(false, allTables)
	fastWriteSQL = buildWriteSQL(true, allTables)
)

// Internals that the tests of package pgbatch_test check.
var (
	ReadSendsQuery = readSendsQuery
	ClaimSendsSQL  = claimSendsSQL
	ClaimFastSQL   = claimFastSQL
	WriteSQL       = writeSQL
	FastWriteSQL   = fastWriteSQL
	WriteParams    = writeParams
)

// Columns are the columns the write fills, by table, in its order:
// spent_holdings's by the spend, the others' by their inserts.
func Columns() map[string][]string {
	out := map[string][]string{}
	spent := models.Get(spentModel)
	for _, f := range spent.Fields {
		out[spent.Name] = append(out[spent.Name], f.Name)
	}
	for _, t := range tables {
		for _, c := range t.cols {
			out[t.name] = append(out[t.name], c.name)
		}
	}
	return out
}

// Model is the bun metadata of a model type, as the write reads it.
func Model(typ reflect.Type) *schema.Table { return models.Get(typ) }
