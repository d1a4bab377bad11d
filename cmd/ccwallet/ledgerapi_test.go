package main

import (
	"testing"
)

// TestServeLedgerAPI: serve runs the JSON Ledger API on its own listener
// with the app port's tokens (ledgerApiListen, --ledger-api-listen), and
// an empty address ("off" on the command line) turns it off.
func TestServeLedgerAPI(t *testing.T) {
	s := startServe(t, sqliteArgs(t), nil)
	if s.addrs.LedgerAPI == "" {
		t.Fatal("no Ledger API listener by default")
	}
	base := "http://" + s.addrs.LedgerAPI
	var v struct{ Version string }
	if code := call(t, plain, "GET", base+"/v2/version", devToken(t, "admin"), "", &v); code != 200 || v.Version == "" {
		t.Errorf("GET /v2/version = %d %+v, want 200 with a version", code, v)
	}
	if code := call(t, plain, "GET", base+"/v2/version", "", "", nil); code != 401 {
		t.Errorf("GET /v2/version without a token = %d, want 401", code)
	}
	// The app port does not serve it.
	if code := call(t, plain, "GET", "http://"+s.addrs.App+"/v2/version", devToken(t, "admin"), "", nil); code != 404 {
		t.Errorf("GET /v2/version on the app port = %d, want 404", code)
	}

	// (An empty flag leaves the file's value, which the helper's flag
	// would otherwise override.)
	off := startServe(t, append(sqliteArgs(t), "--ledger-api-listen", "", "--config", writeFile(t, "v.yaml", "ledgerApiListen: \"\"\n")), nil)
	if off.addrs.LedgerAPI != "" {
		t.Errorf("ledgerApiListen: \"\" still listens on %s", off.addrs.LedgerAPI)
	}
	off2 := startServe(t, append(sqliteArgs(t), "--ledger-api-listen", "off"), nil)
	if off2.addrs.LedgerAPI != "" {
		t.Errorf("--ledger-api-listen off still listens on %s", off2.addrs.LedgerAPI)
	}
}

// TestLedgerConfigShapesExercises: the server and the devnet commands
// open the ledger with the Ledger API's shaping of a command's exercise
// (apiread.ExerciseFacts), so a completion stores what its exercise's
// result is shaped from and not a Unit result.
func TestLedgerConfigShapesExercises(t *testing.T) {
	if (Config{}).ledgerConfig().ExerciseFacts == nil {
		t.Error("ledgerConfig: no ExerciseFacts")
	}
}
