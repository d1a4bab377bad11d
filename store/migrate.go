package store

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/uptrace/bun"
)

//go:embed migrations/*.sql
var migrationFS embed.FS

// Migration is one numbered SQL file.
type Migration struct {
	Version string
	Name    string
	SQL     string
}

// Migrations lists the embedded migrations in order.
func Migrations() ([]Migration, error) { return readMigrations(migrationFS, "migrations") }

// readMigrations lists the migrations in dir of fsys in order.
func readMigrations(fsys fs.FS, dir string) ([]Migration, error) {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil, fmt.Errorf("read migrations: %w", err)
	}
	var ms []Migration
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".up.sql") {
			continue
		}
		b, err := fs.ReadFile(fsys, path.Join(dir, name))
		if err != nil {
			return nil, fmt.Errorf("read migration %s: %w", name, err)
		}
		version, _, _ := strings.Cut(name, "_")
		ms = append(ms, Migration{Version: version, Name: name, SQL: string(b)})
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].Version < ms[j].Version })
	return ms, nil
}

// render fills the dialect placeholders of a migration, so one set of files
// serves both engines. A line starting with {{postgres}} is for Postgres
// only (SQLite sees a comment); a statement, a function's body included,
// may span several such lines. {{sqlite}} is the same for SQLite only.
func (db *DB) render(sql string) string {
	var r *strings.Replacer
	if db.Engine == Postgres {
		r = strings.NewReplacer("{{amount}}", "NUMERIC(38,10)", "{{id}}", "BIGSERIAL PRIMARY KEY", "{{ts}}", "TIMESTAMPTZ", "{{postgres}}", "", "{{sqlite}}", "-- ")
	} else {
		r = strings.NewReplacer("{{amount}}", "TEXT", "{{id}}", "INTEGER PRIMARY KEY AUTOINCREMENT", "{{ts}}", "TIMESTAMP", "{{postgres}}", "-- ", "{{sqlite}}", "")
	}
	return r.Replace(sql)
}

// migrationLockKey serialises migrations of replicas that start together.
const migrationLockKey = "ccwallet:migrate"

// Migrate applies every embedded migration not applied yet, all in one
// transaction, under a lock so two replicas starting at once do not race.
// It returns the versions it applied.
func (db *DB) Migrate(ctx context.Context) ([]string, error) { return db.migrate(ctx, "") }

// migrate is Migrate up to and including version upTo ("" for all): the
// tests of a migration that moves data fill the schema before it first.
func (db *DB) migrate(ctx context.Context, upTo string) ([]string, error) {
	ms, err := Migrations()
	if err != nil {
		return nil, err
	}
	return db.apply(ctx, ms, upTo)
}

// apply applies the migrations of ms up to and including upTo ("" for all)
// that are not applied yet, in one transaction: a migration that fails
// leaves the schema as it was, which the release before still runs on,
// never half-way to the new one. One commit also spares a fresh
// database's first start the disk's wait for each: on Postgres with fsync
// on, `ccwallet migrate` of a fresh database took 241-301 ms with a
// commit a migration, 162-177 ms with one (bench/NOTES.md, 2026-12-03).
func (db *DB) apply(ctx context.Context, ms []Migration, upTo string) ([]string, error) {
	if upTo != "" {
		ms = slices.DeleteFunc(ms, func(m Migration) bool { return m.Version > upTo })
	}
	if db.Engine == Postgres {
		if err := db.ensureSchema(ctx); err != nil {
			return nil, err
		}
	}
	var applied []string
	err := db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		// The advisory lock (Postgres) or the immediate transaction
		// (SQLite) makes the check-then-apply below atomic; even CREATE
		// TABLE IF NOT EXISTS races on Postgres (two replicas both see no
		// table), so it runs under the lock too.
		if err := db.LockKey(ctx, tx, migrationLockKey); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (version TEXT PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)`); err != nil {
			return fmt.Errorf("create schema_migrations: %w", err)
		}
		var have []string
		if err := tx.NewSelect().Table("schema_migrations").Column("version").Scan(ctx, &have); err != nil {
			return fmt.Errorf("read schema_migrations: %w", err)
		}
		now := time.Now().UTC().Format(time.RFC3339)
		for _, m := range ms {
			if slices.Contains(have, m.Version) {
				continue
			}
			for _, stmt := range splitStatements(db.render(m.SQL)) {
				if _, err := tx.ExecContext(ctx, stmt); err != nil {
					return fmt.Errorf("migration %s: %w", m.Name, err)
				}
			}
			if _, err := tx.ExecContext(ctx, "INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)",
				m.Version, m.Name, now); err != nil {
				return fmt.Errorf("migration %s: %w", m.Name, err)
			}
			applied = append(applied, m.Version)
		}
		return nil
	})
	if err != nil {
		return nil, Normalize(err)
	}
	return applied, nil
}

// ensureSchema creates the schema the connection's search_path names
// (persistence.schema) when none of its schemas exists yet: Postgres would
// otherwise refuse the first CREATE TABLE with "no schema has been selected
// to create in". A role without CREATE on the database gets the statement
// a database owner has to run instead.
func (db *DB) ensureSchema(ctx context.Context) error {
	var current sql.NullString
	var path, role string
	if err := db.QueryRowContext(ctx, "SELECT current_schema(), current_setting('search_path'), current_user").Scan(&current, &path, &role); err != nil {
		return fmt.Errorf("read the current schema: %w", Normalize(err))
	}
	if current.Valid {
		return nil
	}
	schema := firstSchema(path)
	if schema == "" {
		return fmt.Errorf("search_path %q names no schema to create the tables in; set persistence.schema", path)
	}
	// Under the migration lock: concurrent CREATE SCHEMA IF NOT EXISTS
	// still collide on pg_namespace's unique index.
	created := false
	err := db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if err := db.LockKey(ctx, tx, migrationLockKey); err != nil {
			return err
		}
		var exists bool
		if err := tx.QueryRowContext(ctx, "SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = ?)", schema).Scan(&exists); err != nil {
			return err
		}
		if exists { // made by a replica meanwhile, or there all along
			return nil
		}
		_, err := tx.ExecContext(ctx, "CREATE SCHEMA "+quoteIdent(schema))
		created = err == nil
		return err
	})
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "42501" { // insufficient_privilege
		return fmt.Errorf("schema %s does not exist and role %s may not create it; as the database's owner run: CREATE SCHEMA %s AUTHORIZATION %s;",
			quoteIdent(schema), quoteIdent(role), quoteIdent(schema), quoteIdent(role))
	}
	if err != nil {
		return fmt.Errorf("create schema %s: %w", quoteIdent(schema), Normalize(err))
	}
	// current_schema() also skips a schema that exists but the role may
	// not use.
	if err := db.QueryRowContext(ctx, "SELECT current_schema()").Scan(&current); err != nil {
		return fmt.Errorf("read the current schema: %w", Normalize(err))
	}
	if !current.Valid {
		return fmt.Errorf("role %s may not use schema %s; as the schema's owner run: GRANT USAGE, CREATE ON SCHEMA %s TO %s;",
			quoteIdent(role), quoteIdent(schema), quoteIdent(schema), quoteIdent(role))
	}
	if !created {
		return nil
	}
	db.log.Info("database schema created", "schema", schema)
	return nil
}

// firstSchema is the first schema search_path names, skipping "$user" (a
// role's own schema is not ours to create). Unquoted names are folded to
// lower case, as Postgres reads them.
func firstSchema(path string) string {
	for _, part := range strings.Split(path, ",") {
		part = strings.TrimSpace(part)
		switch {
		case part == "" || part == `"$user"` || part == "$user":
		case strings.HasPrefix(part, `"`) && strings.HasSuffix(part, `"`) && len(part) >= 2:
			return strings.ReplaceAll(part[1:len(part)-1], `""`, `"`)
		default:
			return strings.ToLower(part)
		}
	}
	return ""
}

func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// splitStatements cuts a migration at semicolons that end a line, dropping
// comment-only lines, except inside a dollar-quoted body ($f$ ... $f$), so
// a function's body may span lines. Our migrations have no semicolons
// inside literals.
func splitStatements(sql string) []string {
	var out []string
	var cur strings.Builder
	inBody := false
	for _, line := range strings.Split(sql, "\n") {
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "--") || trimmed == "" {
			continue
		}
		cur.WriteString(line)
		cur.WriteString("\n")
		if strings.Count(line, "$f$")%2 == 1 {
			inBody = !inBody
		}
		if !inBody && strings.HasSuffix(trimmed, ";") {
			out = append(out, strings.TrimSpace(cur.String()))
			cur.Reset()
		}
	}
	if s := strings.TrimSpace(cur.String()); s != "" {
		out = append(out, s)
	}
	return out
}
