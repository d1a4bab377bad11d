package store

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"sort"
	"strings"
	"time"

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

// Migrate applies every embedded migration not applied yet, each in its own
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
// that are not applied yet.
func (db *DB) apply(ctx context.Context, ms []Migration, upTo string) ([]string, error) {
	if upTo != "" {
		ms = slices.DeleteFunc(ms, func(m Migration) bool { return m.Version > upTo })
	}
	// Even CREATE TABLE IF NOT EXISTS races on Postgres (two replicas both
	// see no table), so it runs under the migration lock too.
	err := db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
		if err := db.LockKey(ctx, tx, migrationLockKey); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (version TEXT PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)`)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("create schema_migrations: %w", Normalize(err))
	}
	var applied []string
	for _, m := range ms {
		done := false
		err := db.RunInTx(ctx, nil, func(ctx context.Context, tx bun.Tx) error {
			// The advisory lock (Postgres) or the immediate transaction
			// (SQLite) makes the check-then-apply below atomic.
			if err := db.LockKey(ctx, tx, migrationLockKey); err != nil {
				return err
			}
			n, err := tx.NewSelect().Table("schema_migrations").Where("version = ?", m.Version).Count(ctx)
			if err != nil {
				return fmt.Errorf("read schema_migrations: %w", err)
			}
			if n > 0 {
				done = true
				return nil
			}
			for _, stmt := range splitStatements(db.render(m.SQL)) {
				if _, err := tx.ExecContext(ctx, stmt); err != nil {
					return fmt.Errorf("migration %s: %w", m.Name, err)
				}
			}
			_, err = tx.ExecContext(ctx, "INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)",
				m.Version, m.Name, time.Now().UTC().Format(time.RFC3339))
			return err
		})
		if err != nil {
			return applied, Normalize(err)
		}
		if !done {
			applied = append(applied, m.Version)
		}
	}
	return applied, nil
}

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
