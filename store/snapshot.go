package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/uptrace/bun"
)

// Development snapshots: a copy of every network table, taken and put back
// whole. The ledger decides who may (a development network only) and
// checks names; this file knows how on each engine.
//
//   - SQLite: a snapshot is a file, dir/NAME.db, written by VACUUM INTO (a
//     consistent copy made from one read transaction, beside running
//     writers). Restore attaches the file and, in one write transaction,
//     deletes every network table's rows and copies the snapshot's in:
//     other connections see the old state or the new, never a mix.
//   - Postgres: a snapshot is a schema, ccwallet_snapshot_NAME, in the
//     same database, filled by CREATE TABLE AS in one REPEATABLE READ
//     transaction (a consistent copy that blocks no writer). Restore takes
//     ACCESS EXCLUSIVE locks on every network table, truncates them and
//     copies the snapshot's rows in, in one transaction: other
//     transactions wait for it and then see the new state. CREATE
//     DATABASE ... TEMPLATE was not chosen: it needs every other
//     connection to the source gone, which a running server never is.
//
// Sequences (offsets and history ids) are put back with the rows, so the
// update log continues from the snapshot's last offset on both engines.

// ErrIncompatible means a snapshot was taken by another schema version.
var ErrIncompatible = errors.New("snapshot incompatible with this database")

// snapshotSchemaPrefix names the Postgres schemas that hold snapshots.
const snapshotSchemaPrefix = "ccwallet_snapshot_"

// snapshotInfoTable, inside a Postgres snapshot's schema, holds when it
// was taken.
const snapshotInfoTable = "ccwallet_snapshot_info"

// notNetwork are the tables a snapshot, restore or reset leaves alone: the
// schema's bookkeeping and what belongs to the running processes (logins
// and job leases), not to the network. The holding versions are raised
// instead (raiseAllHoldingVersions): put back, a version could return to a
// value a replica keeps other holdings under.
var notNetwork = map[string]bool{"schema_migrations": true, "web_sessions": true, "job_leases": true, "holding_versions": true}

// SnapshotInfo describes one stored snapshot.
type SnapshotInfo struct {
	Name      string
	CreatedAt time.Time
	Bytes     int64
}

// SnapshotDir is where the SQLite snapshots of db live when the
// configuration names no directory: "snapshots" beside the database file.
func (db *DB) SnapshotDir() string {
	if db.Engine != SQLite || db.Path == "" || db.Path == ":memory:" {
		return ""
	}
	return filepath.Join(filepath.Dir(db.Path), "snapshots")
}

// snapshotFile is the SQLite snapshot name's file in dir. The ledger
// validates names; a name that is not a plain file name is refused here
// too, so no caller can reach outside dir.
func snapshotFile(dir, name string) (string, error) {
	if dir == "" {
		return "", errors.New("no snapshot directory: an in-memory database cannot keep snapshots")
	}
	if name == "" || filepath.Base(name) != name || strings.ContainsAny(name, `/\.`) {
		return "", fmt.Errorf("snapshot name %q is not a plain name", name)
	}
	return filepath.Join(dir, name+".db"), nil
}

func snapshotSchema(name string) string { return snapshotSchemaPrefix + name }

// networkTables lists the tables a snapshot holds, parties first (users
// refer to them).
func (db *DB) networkTables(ctx context.Context, idb bun.IDB) ([]string, error) {
	q := "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
	if db.Engine == Postgres {
		q = "SELECT relname FROM pg_class WHERE relnamespace = current_schema()::regnamespace AND relkind = 'r'"
	}
	var all []string
	if err := idb.NewRaw(q).Scan(ctx, &all); err != nil {
		return nil, fmt.Errorf("list tables: %w", Normalize(err))
	}
	var tables []string
	for _, t := range all {
		if !notNetwork[t] {
			tables = append(tables, t)
		}
	}
	slices.SortFunc(tables, func(a, b string) int {
		if (a == "parties") != (b == "parties") {
			if a == "parties" {
				return -1
			}
			return 1
		}
		return strings.Compare(a, b)
	})
	return tables, nil
}

// columns lists each table's columns, in order, quoted. Postgres reads
// pg_catalog: information_schema took tens of milliseconds a query.
func (db *DB) columns(ctx context.Context, idb bun.IDB, tables []string) (map[string][]string, error) {
	out := make(map[string][]string, len(tables))
	if db.Engine == Postgres {
		var rows []struct {
			Table  string `bun:"relname"`
			Column string `bun:"attname"`
		}
		err := idb.NewRaw(`SELECT c.relname, a.attname FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
			WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind = 'r' AND a.attnum > 0 AND NOT a.attisdropped
			ORDER BY c.relname, a.attnum`).Scan(ctx, &rows)
		if err != nil {
			return nil, fmt.Errorf("list columns: %w", Normalize(err))
		}
		for _, r := range rows {
			out[r.Table] = append(out[r.Table], quoteIdent(r.Column))
		}
		return out, nil
	}
	for _, t := range tables {
		var cols []string
		if err := idb.NewRaw("SELECT name FROM pragma_table_info(?) ORDER BY cid", t).Scan(ctx, &cols); err != nil {
			return nil, fmt.Errorf("columns of %s: %w", t, Normalize(err))
		}
		for _, c := range cols {
			out[t] = append(out[t], quoteIdent(c))
		}
	}
	return out, nil
}

// CreateSnapshot copies the network's tables to a new snapshot called
// name (ErrAlreadyExists when one is). dir is the SQLite snapshot
// directory; Postgres keeps snapshots in the database.
func (db *DB) CreateSnapshot(ctx context.Context, dir, name string) error {
	if db.Engine == Postgres {
		return db.createPGSnapshot(ctx, name)
	}
	path, err := snapshotFile(dir, name)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create snapshot directory: %w", err)
	}
	if _, err := os.Stat(path); err == nil {
		return fmt.Errorf("snapshot %s: %w", name, ErrAlreadyExists)
	}
	// Written under a temporary name of its own and then linked to its
	// name, which fails if the name exists: a half-written file never
	// passes for a snapshot, and of two taken at once under one name the
	// second is refused rather than replacing the first.
	tmp := filepath.Join(dir, fmt.Sprintf(".%s.%d.tmp", name, rand.Uint64()))
	defer os.Remove(tmp)
	if _, err := db.ExecContext(ctx, "VACUUM INTO ?", tmp); err != nil {
		return fmt.Errorf("write snapshot %s: %w", name, Normalize(err))
	}
	if err := os.Link(tmp, path); errors.Is(err, os.ErrExist) {
		return fmt.Errorf("snapshot %s: %w", name, ErrAlreadyExists)
	} else if err != nil {
		return fmt.Errorf("write snapshot %s: %w", name, err)
	}
	return nil
}

func (db *DB) createPGSnapshot(ctx context.Context, name string) error {
	schema := quoteIdent(snapshotSchema(name))
	err := db.RunInTx(ctx, &sql.TxOptions{Isolation: sql.LevelRepeatableRead}, func(ctx context.Context, tx bun.Tx) error {
		if _, err := tx.ExecContext(ctx, "CREATE SCHEMA "+schema); err != nil {
			if pgErr := (*pgconn.PgError)(nil); errors.As(err, &pgErr) && pgErr.Code == "42P06" { // duplicate_schema
				return fmt.Errorf("snapshot %s: %w", name, ErrAlreadyExists)
			}
			return err
		}
		tables, err := db.networkTables(ctx, tx)
		if err != nil {
			return err
		}
		for _, t := range append(tables, "schema_migrations") {
			if _, err := tx.ExecContext(ctx, "CREATE TABLE "+schema+"."+quoteIdent(t)+" AS SELECT * FROM "+quoteIdent(t)); err != nil {
				return fmt.Errorf("copy %s: %w", t, err)
			}
		}
		_, err = tx.ExecContext(ctx, "CREATE TABLE "+schema+"."+snapshotInfoTable+" AS SELECT now() AS created_at")
		return err
	})
	if err != nil {
		return fmt.Errorf("write snapshot %s: %w", name, Normalize(err))
	}
	return nil
}

// Snapshots lists the stored snapshots by name.
func (db *DB) Snapshots(ctx context.Context, dir string) ([]SnapshotInfo, error) {
	var out []SnapshotInfo
	if db.Engine == Postgres {
		var rows []struct {
			Name  string `bun:"name"`
			Bytes int64  `bun:"bytes"`
		}
		err := db.NewRaw(`SELECT n.nspname AS name, COALESCE((SELECT SUM(pg_total_relation_size(c.oid)) FROM pg_class c
			WHERE c.relnamespace = n.oid AND c.relkind = 'r'), 0)::bigint AS bytes
			FROM pg_namespace n WHERE starts_with(n.nspname, ?) ORDER BY n.nspname`, snapshotSchemaPrefix).Scan(ctx, &rows)
		if err != nil {
			return nil, fmt.Errorf("list snapshots: %w", Normalize(err))
		}
		for _, r := range rows {
			s := SnapshotInfo{Name: strings.TrimPrefix(r.Name, snapshotSchemaPrefix), Bytes: r.Bytes}
			// A schema being written has no info table yet: not listed.
			if err := db.NewRaw("SELECT created_at FROM "+quoteIdent(r.Name)+"."+snapshotInfoTable).Scan(ctx, &s.CreatedAt); err != nil {
				continue
			}
			out = append(out, s)
		}
		return out, nil
	}
	if dir == "" {
		return nil, nil
	}
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	} else if err != nil {
		return nil, fmt.Errorf("list snapshots: %w", err)
	}
	for _, e := range entries {
		name, ok := strings.CutSuffix(e.Name(), ".db")
		if !ok || e.IsDir() || strings.HasPrefix(name, ".") {
			continue
		}
		fi, err := e.Info()
		if err != nil {
			continue // removed meanwhile
		}
		out = append(out, SnapshotInfo{Name: name, CreatedAt: fi.ModTime().UTC(), Bytes: fi.Size()})
	}
	return out, nil
}

// DeleteSnapshot removes snapshot name (ErrNotFound when there is none).
func (db *DB) DeleteSnapshot(ctx context.Context, dir, name string) error {
	if db.Engine == Postgres {
		if err := db.pgSnapshotExists(ctx, db, name); err != nil {
			return err
		}
		if _, err := db.ExecContext(ctx, "DROP SCHEMA "+quoteIdent(snapshotSchema(name))+" CASCADE"); err != nil {
			return fmt.Errorf("delete snapshot %s: %w", name, Normalize(err))
		}
		return nil
	}
	path, err := snapshotFile(dir, name)
	if err != nil {
		return err
	}
	if err := os.Remove(path); errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("snapshot %s: %w", name, ErrNotFound)
	} else if err != nil {
		return fmt.Errorf("delete snapshot %s: %w", name, err)
	}
	return nil
}

func (db *DB) pgSnapshotExists(ctx context.Context, idb bun.IDB, name string) error {
	var n int
	if err := idb.NewRaw("SELECT count(*) FROM pg_namespace WHERE nspname = ?", snapshotSchema(name)).Scan(ctx, &n); err != nil {
		return fmt.Errorf("find snapshot %s: %w", name, Normalize(err))
	}
	if n == 0 {
		return fmt.Errorf("snapshot %s: %w", name, ErrNotFound)
	}
	return nil
}

// RestoreSnapshot replaces every network table's rows with snapshot
// name's, in one transaction (see the top of this file).
func (db *DB) RestoreSnapshot(ctx context.Context, dir, name string) error {
	if db.Engine == Postgres {
		return db.InTx(ctx, func(ctx context.Context, tx bun.Tx) error {
			if err := db.pgSnapshotExists(ctx, tx, name); err != nil {
				return err
			}
			return db.restoreTables(ctx, tx, quoteIdent(snapshotSchema(name))+".")
		})
	}
	path, err := snapshotFile(dir, name)
	if err != nil {
		return err
	}
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("snapshot %s: %w", name, ErrNotFound)
	}
	// ATTACH holds for the connection, outside any transaction: this one
	// connection attaches, restores in one transaction and detaches.
	release, err := db.writerSlot(ctx)
	if err != nil {
		return err
	}
	defer release()
	conn, err := db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("restore snapshot %s: %w", name, Normalize(err))
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "ATTACH DATABASE ? AS snap", path); err != nil {
		return fmt.Errorf("open snapshot %s: %w", name, Normalize(err))
	}
	defer func() {
		if _, err := conn.ExecContext(context.Background(), "DETACH DATABASE snap"); err != nil {
			// Never hand the pool a connection with the file attached.
			_ = conn.Raw(func(any) error { return driver.ErrBadConn })
		}
	}()
	return RetryTx(ctx, func() error {
		return conn.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
			// Rows go in table by table; the foreign keys are checked at
			// commit, when every table is whole again.
			if _, err := tx.ExecContext(ctx, "PRAGMA defer_foreign_keys = ON"); err != nil {
				return err
			}
			return db.restoreTables(ctx, tx, "snap.")
		})
	})
}

// restoreTables runs inside restore's transaction: from is the snapshot's
// qualifier ("snap." or a schema and a dot).
func (db *DB) restoreTables(ctx context.Context, tx bun.Tx, from string) error {
	if err := sameMigrations(ctx, tx, from); err != nil {
		return err
	}
	tables, err := db.networkTables(ctx, tx)
	if err != nil {
		return err
	}
	if err := db.clearTables(ctx, tx, tables); err != nil {
		return err
	}
	columns, err := db.columns(ctx, tx, tables)
	if err != nil {
		return err
	}
	for _, t := range tables {
		list := strings.Join(columns[t], ", ")
		if _, err := tx.ExecContext(ctx, "INSERT INTO "+quoteIdent(t)+" ("+list+") SELECT "+list+" FROM "+from+quoteIdent(t)); err != nil {
			return fmt.Errorf("restore %s: %w", t, Normalize(err))
		}
	}
	if err := raiseAllHoldingVersions(ctx, tx); err != nil {
		return err
	}
	return db.resetSequences(ctx, tx, tables, from)
}

// sameMigrations refuses a snapshot taken at another schema version: its
// rows would not fit the tables.
func sameMigrations(ctx context.Context, tx bun.Tx, from string) error {
	var have, snap []string
	if err := tx.NewRaw("SELECT version FROM schema_migrations ORDER BY version").Scan(ctx, &have); err != nil {
		return fmt.Errorf("read migrations: %w", Normalize(err))
	}
	if err := tx.NewRaw("SELECT version FROM "+from+"schema_migrations ORDER BY version").Scan(ctx, &snap); err != nil {
		return fmt.Errorf("%w: it has no migration record", ErrIncompatible)
	}
	if !slices.Equal(have, snap) {
		last := func(v []string) string {
			if len(v) == 0 {
				return "none"
			}
			return v[len(v)-1]
		}
		return fmt.Errorf("%w: it was taken at schema version %s and this database is at %s; take it again", ErrIncompatible, last(snap), last(have))
	}
	return nil
}

// clearTables empties tables inside tx, children before parents (tables
// has parties first). On Postgres every table is locked ACCESS EXCLUSIVE
// first, so every other transaction on them waits for tx's end and then
// sees the new state whole. DELETE, not TRUNCATE: truncating the ~20
// tables made new files for each and their indexes, 300 ms on an empty
// network, where deleting even 10,000 holdings' rows is quicker.
func (db *DB) clearTables(ctx context.Context, tx bun.Tx, tables []string) error {
	if db.Engine == Postgres {
		quoted := make([]string, len(tables))
		for i, t := range tables {
			quoted[i] = quoteIdent(t)
		}
		if _, err := tx.ExecContext(ctx, "LOCK TABLE "+strings.Join(quoted, ", ")+" IN ACCESS EXCLUSIVE MODE"); err != nil {
			return fmt.Errorf("lock tables: %w", Normalize(err))
		}
	}
	for _, t := range slices.Backward(tables) {
		if _, err := tx.ExecContext(ctx, "DELETE FROM "+quoteIdent(t)); err != nil {
			return fmt.Errorf("clear %s: %w", t, Normalize(err))
		}
	}
	return nil
}

// resetSequences sets the auto-increment counters of tables to from's (""
// for the empty state of a reset).
func (db *DB) resetSequences(ctx context.Context, tx bun.Tx, tables []string, from string) error {
	if db.Engine == SQLite {
		if _, err := tx.ExecContext(ctx, "DELETE FROM sqlite_sequence WHERE name IN (?)", bun.List(tables)); err != nil {
			return fmt.Errorf("reset sequences: %w", Normalize(err))
		}
		if from == "" {
			return nil
		}
		_, err := tx.ExecContext(ctx, "INSERT INTO sqlite_sequence (name, seq) SELECT name, seq FROM "+from+"sqlite_sequence WHERE name IN (?)", bun.List(tables))
		if err != nil {
			return fmt.Errorf("restore sequences: %w", Normalize(err))
		}
		return nil
	}
	var serials []struct {
		Table  string `bun:"table_name"`
		Column string `bun:"column_name"`
		Seq    string `bun:"seq"`
	}
	err := tx.NewRaw(`SELECT t.relname AS table_name, a.attname AS column_name, s.oid::regclass::text AS seq
		FROM pg_class s JOIN pg_depend d ON d.objid = s.oid AND d.classid = 'pg_class'::regclass AND d.deptype IN ('a', 'i')
		JOIN pg_class t ON t.oid = d.refobjid JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = d.refobjsubid
		WHERE s.relkind = 'S' AND t.relnamespace = current_schema()::regnamespace AND t.relname IN (?)`,
		bun.List(tables)).Scan(ctx, &serials)
	if err != nil {
		return fmt.Errorf("list sequences: %w", Normalize(err))
	}
	for _, s := range serials {
		// The next value is one past the restored rows' largest. ALTER
		// SEQUENCE ... RESTART is transactional (unlike setval): a
		// restore that rolls back leaves the sequence as it was.
		var next int64
		if err := tx.NewRaw("SELECT COALESCE(MAX("+quoteIdent(s.Column)+"), 0) + 1 FROM "+quoteIdent(s.Table)).Scan(ctx, &next); err != nil {
			return fmt.Errorf("read %s: %w", s.Table, Normalize(err))
		}
		if _, err := tx.ExecContext(ctx, fmt.Sprintf("ALTER SEQUENCE %s RESTART WITH %d", s.Seq, next)); err != nil {
			return fmt.Errorf("reset %s: %w", s.Seq, Normalize(err))
		}
	}
	return nil
}

// ClearNetwork empties every network table inside tx and resets their
// sequences, for a reset that then creates the network again.
func (db *DB) ClearNetwork(ctx context.Context, tx bun.Tx) error {
	tables, err := db.networkTables(ctx, tx)
	if err != nil {
		return err
	}
	if db.Engine == SQLite {
		if _, err := tx.ExecContext(ctx, "PRAGMA defer_foreign_keys = ON"); err != nil {
			return err
		}
	}
	if err := db.clearTables(ctx, tx, tables); err != nil {
		return err
	}
	if err := db.resetSequences(ctx, tx, tables, ""); err != nil {
		return err
	}
	if err := raiseAllHoldingVersions(ctx, tx); err != nil {
		return err
	}
	// The rows the migrations seed, as a new database has them.
	if _, err := tx.ExecContext(ctx, "INSERT INTO pruned_totals (id, minted, burned, updates, contracts, last_offset) VALUES (1, '0', '0', 0, 0, 0)"); err != nil {
		return fmt.Errorf("seed pruned_totals: %w", Normalize(err))
	}
	return nil
}
