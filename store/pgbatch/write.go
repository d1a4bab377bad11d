package pgbatch

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/store"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"
	"github.com/uptrace/bun/schema"
)

// table is one table the write inserts into: its columns, taken from its
// bun model in the model's order, and where a Writes keeps its rows. A
// field added to a model is a column of the write without another edit
// (TestWriteColumns holds the models to the schema).
type table struct {
	name string
	cols []column
	rows func(w *store.Writes) reflect.Value
}

// column is one column of a table's insert: its name, its array
// parameter's cast, and how that array is gathered from the rows.
type column struct {
	name   string
	cast   string
	gather func(rows reflect.Value) any
	// oid is the array's Postgres type, and appendTo appends the array
	// in its binary form straight from the rows, the bytes appendArray
	// writes for gather's slice (TestColumnAppendToAsGathered): the
	// pipelined writes send a column so, without a slice of its values
	// (and a pointer for each value of a column that may be NULL) made
	// only to be encoded, a fifth of a send's allocations.
	oid      uint32
	appendTo func(buf []byte, rows reflect.Value) []byte
}

// columnArg is a column's argument to queuePrepared: the rows, for the
// column to append (appendTo).
type columnArg struct {
	c    *column
	rows reflect.Value
}

// tables are the inserts of the write, in the order of its statement.
// history's id is the database's to assign.
var tables = []table{
	tableOf(func(w *store.Writes) []store.Update { return w.Updates }),
	tableOf(func(w *store.Writes) []store.Contract { return w.Contracts }),
	tableOf(func(w *store.Writes) []store.Holding { return w.Holdings }),
	tableOf(func(w *store.Writes) []store.HistoryEntry { return w.History }, "id"),
	tableOf(func(w *store.Writes) []store.RewardCoupon { return w.Coupons }),
	tableOf(func(w *store.Writes) []store.Command { return w.Commands }),
	tableOf(func(w *store.Writes) []store.Completion { return w.Completions }),
}

// models are the tables' bun metadata, as Postgres's dialect reads the
// models.
var models = pgdialect.New().Tables()

// tableOf is the table of model T, whose rows rows picks from a Writes,
// without the columns omit.
func tableOf[T any](rows func(w *store.Writes) []T, omit ...string) table {
	m := models.Get(reflect.TypeFor[T]())
	t := table{name: m.Name, rows: func(w *store.Writes) reflect.Value { return reflect.ValueOf(rows(w)) }}
	for _, f := range m.Fields {
		if !contains(omit, f.Name) {
			t.cols = append(t.cols, columnOf(m.Name, f))
		}
	}
	return t
}

func contains(names []string, name string) bool {
	for _, n := range names {
		if n == name {
			return true
		}
	}
	return false
}

var (
	typeAmount    = reflect.TypeFor[coin.Amount]()
	typeAmountPtr = reflect.TypeFor[*coin.Amount]()
	typeTime      = reflect.TypeFor[time.Time]()
	typeNullTime  = reflect.TypeFor[bun.NullTime]()
	typeInt64Ptr  = reflect.TypeFor[*int64]()
)

// columnOf is f's column. Each kind of field travels as one kind of array
// that appendArray encodes; amounts as text, cast to numeric, exactly.
func columnOf(tableName string, f *schema.Field) column {
	idx := f.Index
	c := column{name: f.Name}
	switch t := f.StructField.Type; {
	case t == typeAmount:
		c.cast = "text[]::numeric[]"
		kind(&c, idx, oidTextArray, oidText, false, func(v reflect.Value) (string, bool) {
			return v.Addr().Interface().(*coin.Amount).String(), true
		}, appendText)
	case t == typeAmountPtr:
		c.cast = "text[]::numeric[]"
		kind(&c, idx, oidTextArray, oidText, true, func(v reflect.Value) (string, bool) {
			if a := v.Interface().(*coin.Amount); a != nil {
				return a.String(), true
			}
			return "", false
		}, appendText)
	case t == typeTime:
		c.cast = "timestamptz[]"
		kind(&c, idx, oidTimestamptzArray, oidTimestamptz, false, func(v reflect.Value) (time.Time, bool) {
			return *v.Addr().Interface().(*time.Time), true
		}, appendTimestamptz)
	case t == typeNullTime:
		c.cast = "timestamptz[]"
		kind(&c, idx, oidTimestamptzArray, oidTimestamptz, true, func(v reflect.Value) (time.Time, bool) {
			t := v.Addr().Interface().(*bun.NullTime)
			return t.Time, !t.IsZero()
		}, appendTimestamptz)
	case t == typeInt64Ptr:
		c.cast = "bigint[]"
		kind(&c, idx, oidInt8Array, oidInt8, true, func(v reflect.Value) (int64, bool) {
			if n := v.Interface().(*int64); n != nil {
				return *n, true
			}
			return 0, false
		}, appendInt8)
	case t.Kind() == reflect.String && f.NullZero:
		// The models' nullzero strings: NULL when empty.
		c.cast = "text[]"
		kind(&c, idx, oidTextArray, oidText, true, func(v reflect.Value) (string, bool) {
			s := v.String()
			return s, s != ""
		}, appendText)
	case t.Kind() == reflect.String:
		c.cast = "text[]"
		kind(&c, idx, oidTextArray, oidText, false, func(v reflect.Value) (string, bool) { return v.String(), true }, appendText)
	case t.Kind() == reflect.Int64:
		c.cast = "bigint[]"
		kind(&c, idx, oidInt8Array, oidInt8, false, func(v reflect.Value) (int64, bool) { return v.Int(), true }, appendInt8)
	case t.Kind() == reflect.Bool:
		c.cast = "boolean[]"
		kind(&c, idx, oidBoolArray, oidBool, false, func(v reflect.Value) (bool, bool) { return v.Bool(), true }, appendBool)
	default:
		panic(fmt.Sprintf("pgbatch: column %s.%s has Go type %s, which the write cannot send", tableName, f.Name, t))
	}
	return c
}

// kind sets c's gather and appendTo from val, the value of the field at
// idx of a row (false: NULL, which only a nullable column has), and put,
// which appends an element. A nullable column gathers a []*T, nil for
// NULL, as appendNullables takes it; any other a []T. Neither is ever a
// nil slice, so the array is never NULL, though it may be empty.
func kind[T any](c *column, idx []int, array, elem uint32, nullable bool, val func(reflect.Value) (T, bool), put func([]byte, T) []byte) {
	c.oid = array
	if nullable {
		c.gather = func(rows reflect.Value) any {
			out := make([]*T, rows.Len())
			for i := range out {
				if v, ok := val(rows.Index(i).FieldByIndex(idx)); ok {
					out[i] = &v
				}
			}
			return out
		}
	} else {
		c.gather = func(rows reflect.Value) any {
			out := make([]T, rows.Len())
			for i := range out {
				out[i], _ = val(rows.Index(i).FieldByIndex(idx))
			}
			return out
		}
	}
	c.appendTo = func(buf []byte, rows reflect.Value) []byte {
		return appendArrayOf(buf, elem, rows.Len(), func(i int) (T, bool) { return val(rows.Index(i).FieldByIndex(idx)) }, put)
	}
}

// forgetCommandsSQL deletes the commands of Writes.Forget. It runs before
// the write, not inside it: the sub-statements of one statement run in no
// set order, and the insert of a reused key must come after its delete.
const forgetCommandsSQL = `DELETE FROM commands WHERE dedup_key = ANY($1::text[])`

// The write puts a Writes on Postgres as one statement with an array per
// column, so its text is the same for any number of rows: each connection
// prepares and plans it once, where a statement per table with the values
// inlined was parsed and planned on every commit (a third of Postgres's
// time for a send's write). Its first step spends Writes.Spend ($1, the
// ids, and $2, their offsets) into spent_holdings; its last is the
// spend's guard, which raises ErrStale's code when fewer holdings were
// spent than asked, failing the whole statement. The spend's ANY is the
// index condition: the join alone let a generic plan read every holding.
// Then the raise of the holding versions (store/holdingversions.go) of
// the parties of $3 (Writes.Touched and the new holdings' owners) and of
// the spent holdings' owners, in the parties' order, and an insert per
// table of tables, a parameter per column. buildWriteSQL builds it, and
// writeOf keeps each variant.

// writeParams is how many parameters the write of every table takes.
var writeParams = 3 + func() (n int) {
	for _, t := range tables {
		n += len(t.cols)
	}
	return n
}()

// spentModel is the model of the spend's rows.
var spentModel = reflect.TypeFor[store.SpentHolding]()

// buildWriteSQL is the write's text. With fast (the fast write), every
// offset column and the spend's offsets go through fastOffsetSQL, which
// puts the offsets the batch's claim drew in place of their placeholders,
// and fastGuardsSQL ends it.
//
// Its arrays are unnested in select lists (rowsOf), never in FROM: there
// Postgres gathers a function's rows in a tuplestore first, whose 16 KB
// array glibc hands back to the kernel when the statement ends and faults
// in anew on the next, some 20 times a statement (bench/NOTES.md).
//
// Only the tables of mask get an insert (filledTables): Postgres opens
// every table and index a statement names each time it runs the plan,
// whether or not rows come, and a one-step send fills neither contracts
// nor completions.
func buildWriteSQL(fast bool, mask tableMask) string {
	at := func(expr string) string { return expr }
	if fast {
		at = func(expr string) string { return fmt.Sprintf(fastOffsetSQL, expr) }
	}
	spent := models.Get(spentModel)
	var names, returning []string
	for _, f := range spent.Fields {
		names = append(names, f.Name)
		if f.Name == "spent_offset" {
			returning = append(returning, at("s.at"))
		} else {
			returning = append(returning, "h."+f.Name)
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, `WITH spent AS (
	DELETE FROM holdings AS h USING %s AS s
	WHERE h.contract_id = ANY($1::text[]) AND h.contract_id = s.id AND h.lock_holder IS NULL
	RETURNING %s
), ins_spent AS (
	INSERT INTO %s (%s)
	SELECT * FROM spent
), versions AS (
	INSERT INTO holding_versions AS v (party, slot, version)
	SELECT p, %s, 1 FROM (SELECT unnest($3::text[]) UNION SELECT owner FROM spent) AS t(p) ORDER BY p
	ON CONFLICT (party, slot) DO UPDATE SET version = v.version + 1
)`, rowsOf([]string{"$1::text[]", "$2::bigint[]"}, []string{"id", "at"}), strings.Join(returning, ", "), spent.Name, strings.Join(names, ", "), store.VersionSlotSQL)
	n := 3
	for ti, t := range tables {
		if !mask.has(ti) {
			continue
		}
		names, params, values := make([]string, len(t.cols)), make([]string, len(t.cols)), make([]string, len(t.cols))
		aliases := make([]string, len(t.cols))
		for i, c := range t.cols {
			n++
			names[i], params[i] = c.name, fmt.Sprintf("$%d::%s", n, c.cast)
			aliases[i] = fmt.Sprintf("c%d", i+1)
			values[i] = "u." + aliases[i]
			if c.cast == "bigint[]" && (c.name == "offset_id" || strings.HasSuffix(c.name, "_offset")) {
				values[i] = at(values[i])
			}
		}
		fmt.Fprintf(&b, `, ins_%s AS (
	INSERT INTO %s (%s)
	SELECT %s FROM %s AS u
)`, t.name, t.name, strings.Join(names, ", "), strings.Join(values, ", "), rowsOf(params, aliases))
	}
	b.WriteString("\nSELECT ccwallet_spent((SELECT count(*) FROM spent), cardinality($1::text[]))")
	if fast {
		fmt.Fprintf(&b, fastGuardsSQL, n+1, n+2, n+3, n+4, n+5)
	}
	return b.String()
}

// rowsOf is a subquery of one row per element of the equally long arrays
// params, its columns named aliases: unnest in the select list, which
// runs the arrays in step as unnest(a, b, ...) in FROM does, without
// gathering them in a tuplestore first.
func rowsOf(params, aliases []string) string {
	cols := make([]string, len(params))
	for i, p := range params {
		cols[i] = fmt.Sprintf("unnest(%s) AS %s", p, aliases[i])
	}
	return "(SELECT " + strings.Join(cols, ", ") + ")"
}

// tableMask is a set of tables, by their index in tables.
type tableMask uint16

// allTables holds every table.
var allTables = tableMask(1)<<len(tables) - 1

func (m tableMask) has(i int) bool { return m&(1<<i) != 0 }

// filledTables are the tables w has rows for.
func filledTables(w *store.Writes) tableMask {
	var m tableMask
	for i, t := range tables {
		if t.rows(w).Len() > 0 {
			m |= 1 << i
		}
	}
	return m
}

// writes are the write's variants by the tables a batch fills
// (buildWriteSQL), plain and fast, each a prepared statement of its own:
// the batches of one kind fill the same few tables every time.
var writes = [2][]writeVariant{make([]writeVariant, allTables+1), make([]writeVariant, allTables+1)}

// writeVariant is one of writes, made on first use.
type writeVariant struct {
	once      sync.Once
	name, sql string
}

// writeOf is the name and text of the write of the tables of mask, the
// fast one or the plain.
func writeOf(fast bool, mask tableMask) (name, sql string) {
	kind, prefix := 0, "ccwallet_write"
	if fast {
		kind, prefix = 1, "ccwallet_write_fast"
	}
	v := &writes[kind][mask]
	v.once.Do(func() { v.name, v.sql = fmt.Sprintf("%s_%x", prefix, uint16(mask)), buildWriteSQL(fast, mask) })
	return v.name, v.sql
}

// writeArgs are the arguments of writeOf's statement for mask, in its
// parameters' order.
func writeArgs(w *store.Writes, mask tableMask) []any {
	return writeArgsBy(w, mask, func(c *column, rows reflect.Value) any { return c.gather(rows) })
}

// pipeWriteArgs are writeArgs as queuePrepared takes them: each column a
// *columnArg, to append itself (column.appendTo).
func pipeWriteArgs(w *store.Writes, mask tableMask) []any {
	cols := make([]columnArg, 0, writeParams) // never grows: &cols[i] stay put
	return writeArgsBy(w, mask, func(c *column, rows reflect.Value) any {
		cols = append(cols, columnArg{c, rows})
		return &cols[len(cols)-1]
	})
}

// writeArgsBy are the write's arguments, each column's made by arg.
func writeArgsBy(w *store.Writes, mask tableMask, arg func(c *column, rows reflect.Value) any) []any {
	args := make([]any, 0, writeParams)
	spend := make([]string, len(w.Spend))
	for i, id := range w.Spend {
		spend[i] = string(id)
	}
	spendAt := w.SpendAt
	if spendAt == nil {
		spendAt = []int64{}
	}
	args = append(args, spend, spendAt, store.SortedParties(w.RaisedOwners()))
	for ti, t := range tables {
		if !mask.has(ti) {
			continue
		}
		rows := t.rows(w)
		for ci := range t.cols {
			args = append(args, arg(&t.cols[ci], rows))
		}
	}
	return args
}

// customPlanSQL has the rest of a change's transaction plan its prepared
// statements for each call. A generic plan (the session's plan_cache_mode,
// withSessionDefaults) is made once per connection and kept until an
// analyze of its tables: the write's, made while holdings held a few
// hundred rows, scanned all 137,000 of them 40 s of sends later (75 ms a
// write, autovacuum not having come by yet), and made on a near-empty
// table it may take the owner index for the spend, the contract id its
// second column (the whole index). Under sendBatchSettings, as a send
// batch's, a whole change ran slower (reward collection for 1,000
// parties 3 times, a time jump of 1,000 rounds twice) and the write still
// took that owner index. A change's write is not the hot path: a send
// batch's is, and keeps its generic plans.
const customPlanSQL = `SELECT set_config('plan_cache_mode', 'force_custom_plan', true)`

// WriteTx is the Postgres store.Writer's WriteTx: w in two round trips
// (three when it forgets commands).
func (x *Writer) WriteTx(ctx context.Context, tx bun.Tx, w *store.Writes) error {
	if w.Empty() {
		return nil
	}
	// A change's write is planned for its arguments and the tables as
	// they are (customPlanSQL), at a round trip of its own: database/sql
	// sends one statement at a time.
	_, err := tx.Tx.ExecContext(ctx, customPlanSQL)
	if err == nil && len(w.Forget) > 0 {
		_, err = tx.Tx.ExecContext(ctx, forgetCommandsSQL, store.CachedStatement(w.Forget)...)
	}
	if err == nil {
		// Prepared once per connection: the connection's default is the
		// simple protocol, which would parse and plan it every time.
		mask := filledTables(w)
		_, sql := writeOf(false, mask)
		_, err = tx.Tx.ExecContext(ctx, sql, store.CachedStatement(writeArgs(w, mask)...)...)
	}
	if err != nil {
		return fmt.Errorf("write: %w", store.Normalize(err))
	}
	return nil
}
