package ledgertest

import (
	"context"
	"strings"
	"testing"

	"github.com/ccwallet/ccwallet/store"
)

// The holding audit checks, beside conservation after every test New
// sets up, that every transaction that changed a party's holdings raised
// its holding version too (store/holdingversions.go): the home page keeps
// a party's valued holdings until that version moves, so a path that
// forgot it would show a stale balance. Triggers that only the tests
// install watch the holdings and the versions.
//
//   - Postgres: each change of a holding row and each raise is logged with
//     its transaction's id, in a schema of its own (which snapshots and
//     restores leave alone); every change must have a raise of its
//     owner in its transaction.
//   - SQLite, which has no transaction ids: a change of a holding row
//     leaves its owner pending until a raise of that owner clears it;
//     nothing may be pending after the test. (Write transactions are
//     exclusive and raise as their write's last statement.)

var holdingAuditPostgres = []string{
	`CREATE SCHEMA holding_audit`,
	`CREATE TABLE holding_audit.changed (owner text NOT NULL, tx bigint NOT NULL)`,
	`CREATE TABLE holding_audit.raised (party text NOT NULL, tx bigint NOT NULL)`,
	`CREATE FUNCTION holding_audit.changed() RETURNS trigger LANGUAGE plpgsql AS $$
	BEGIN
		IF TG_OP <> 'DELETE' THEN INSERT INTO holding_audit.changed VALUES (NEW.owner, txid_current()); END IF;
		IF TG_OP <> 'INSERT' THEN INSERT INTO holding_audit.changed VALUES (OLD.owner, txid_current()); END IF;
		RETURN NULL;
	END $$`,
	`CREATE FUNCTION holding_audit.raised() RETURNS trigger LANGUAGE plpgsql AS $$
	BEGIN
		INSERT INTO holding_audit.raised VALUES (NEW.party, txid_current());
		RETURN NULL;
	END $$`,
	`CREATE TRIGGER holding_audit AFTER INSERT OR UPDATE OR DELETE ON holdings FOR EACH ROW EXECUTE FUNCTION holding_audit.changed()`,
	`CREATE TRIGGER holding_audit AFTER INSERT OR UPDATE ON holding_versions FOR EACH ROW EXECUTE FUNCTION holding_audit.raised()`,
}

const holdingAuditPostgresCheck = `SELECT DISTINCT c.owner FROM holding_audit.changed AS c
	WHERE NOT EXISTS (SELECT 1 FROM holding_audit.raised AS r WHERE r.party = c.owner AND r.tx = c.tx) LIMIT 10`

var holdingAuditSQLite = []string{
	`CREATE TABLE holding_audit_pending (owner TEXT NOT NULL)`,
	`CREATE TRIGGER holding_audit_insert AFTER INSERT ON holdings BEGIN INSERT INTO holding_audit_pending VALUES (NEW.owner); END`,
	`CREATE TRIGGER holding_audit_delete AFTER DELETE ON holdings BEGIN INSERT INTO holding_audit_pending VALUES (OLD.owner); END`,
	`CREATE TRIGGER holding_audit_update AFTER UPDATE ON holdings BEGIN
		INSERT INTO holding_audit_pending VALUES (NEW.owner); INSERT INTO holding_audit_pending VALUES (OLD.owner); END`,
	`CREATE TRIGGER holding_audit_raise AFTER INSERT ON holding_versions BEGIN DELETE FROM holding_audit_pending WHERE owner = NEW.party; END`,
	`CREATE TRIGGER holding_audit_raise_again AFTER UPDATE ON holding_versions BEGIN DELETE FROM holding_audit_pending WHERE owner = NEW.party; END`,
}

const holdingAuditSQLiteCheck = `SELECT DISTINCT owner FROM holding_audit_pending LIMIT 10`

// AuditHoldingVersions installs the holding audit on db (a fresh
// database of DBURL) and checks it when the test ends, unless the test
// failed already. New does it for every test's ledger.
func AuditHoldingVersions(t testing.TB, db *store.DB) {
	t.Helper()
	ctx := context.Background()
	ddl, check := holdingAuditSQLite, holdingAuditSQLiteCheck
	if db.Engine == store.Postgres {
		ddl, check = holdingAuditPostgres, holdingAuditPostgresCheck
	}
	for _, q := range ddl {
		if _, err := db.ExecContext(ctx, q); err != nil {
			t.Fatalf("install the holding audit: %v", err)
		}
	}
	t.Cleanup(func() {
		if t.Failed() {
			return
		}
		var missed []string
		if err := db.NewRaw(check).Scan(ctx, &missed); err != nil {
			t.Errorf("after the test: holding audit: %v", err)
			return
		}
		if len(missed) > 0 {
			t.Errorf("after the test: a transaction changed the holdings of %s without raising their holding version (store/holdingversions.go)",
				strings.Join(missed, ", "))
		}
	})
}
