package ledger

import (
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/store"
)

// The Ledger API's interactive submission (ledgerapi/interactive.go):
// an external party's command is prepared as Canton's PreparedTransaction
// (package preparedtx), signed off the node, and executed. The ledger
// keeps which transactions it prepared, and until when, and holds the
// rule of whose signature counts; the command itself runs through the
// same ledger method as a submit-and-wait.

// KindInteractive marks a prepared transaction of the Ledger API's
// interactive submission in the prepared transactions' store.
const KindInteractive = "ledger-api/interactive-submission"

// Signature formats and the algorithm external parties sign with, as
// the Ledger API names them.
const (
	SignatureFormatConcat   = "SIGNATURE_FORMAT_CONCAT"
	SignatureFormatRaw      = "SIGNATURE_FORMAT_RAW"
	SigningAlgorithmEd25519 = "SIGNING_ALGORITHM_SPEC_ED25519"
)

// ExternalSignature is one signature of a prepared transaction's hash.
type ExternalSignature struct {
	Format    string
	Signature []byte
	// SignedBy is the fingerprint of the signing key (coin.Fingerprint).
	SignedBy  string
	Algorithm string
}

// SignatureError is a prepared transaction whose signatures do not
// authorize it: missing, by a key the party has not registered, in an
// unsupported format, or not over this transaction's hash.
type SignatureError struct{ msg string }

func (e *SignatureError) Error() string { return e.msg }

func sigErr(format string, args ...any) error {
	return &SignatureError{msg: fmt.Sprintf(format, args...)}
}

// PreparedTTL is how long a prepared transaction may be executed.
func (l *Ledger) PreparedTTL() time.Duration { return l.preparedTTL() }

// ExternalPartyKey is an external party's registered Ed25519 key. A party
// the ledger does not know is ErrNotFound; a local one a ValidationError.
// The Ledger API asks it on every submission, so the answer for a known
// party is remembered: a party's row is only ever inserted, never changed
// or deleted (a restore, which replaces the table, clears the memory).
func (l *Ledger) ExternalPartyKey(ctx context.Context, party coin.PartyID) (ed25519.PublicKey, error) {
	if p, ok := l.partyRows.Load(party); ok {
		return externalKey(p.(*store.Party))
	}
	p, err := store.PartyByID(ctx, l.db, party)
	if err != nil {
		return nil, fmt.Errorf("party %s: %w", party, err)
	}
	l.partyRows.Store(party, p)
	return externalKey(p)
}

// RecordInteractive remembers that this node prepared the transaction
// with hash for party, executable until expires, so execute accepts only
// transactions this node prepared.
func (l *Ledger) RecordInteractive(ctx context.Context, party coin.PartyID, hash []byte, commandID string, expires time.Time) error {
	if _, err := l.externalParty(ctx, l.db, party); err != nil {
		return err
	}
	err := store.InsertPreparedTx(ctx, l.db, &store.PreparedTx{
		TxHash: hex.EncodeToString(hash), Party: party, Kind: KindInteractive, Body: mustJSON(map[string]string{"commandId": commandID}),
		Status: store.PreparedPending, CreatedAt: l.now(), ExpiresAt: expires,
	})
	if err != nil {
		return fmt.Errorf("record prepared transaction for %s: %w", party, err)
	}
	return nil
}

// InteractivePrepared is when the transaction with hash, prepared by this
// node, stops being executable: ErrNotFound when this node did not
// prepare it, ErrExpired when that time has passed.
func (l *Ledger) InteractivePrepared(ctx context.Context, hash []byte) (time.Time, error) {
	h := hex.EncodeToString(hash)
	p, err := store.PreparedTxByHash(ctx, l.db, h)
	if errors.Is(err, store.ErrNotFound) || err == nil && p.Kind != KindInteractive {
		return time.Time{}, fmt.Errorf("%w: no transaction with hash %s was prepared by this participant", ErrNotFound, h)
	} else if err != nil {
		return time.Time{}, err
	}
	if !l.now().Before(p.ExpiresAt) {
		return p.ExpiresAt, fmt.Errorf("%w: the prepared transaction %s could be executed until %s; prepare it again", ErrExpired, h, FormatTime(p.ExpiresAt))
	}
	return p.ExpiresAt, nil
}

// VerifyExternalSignatures checks that every submitting party signed
// hash: each must be an external party, and at least one of its
// signatures (its key's threshold is 1) must be an Ed25519 signature by
// its registered key, named by the key's fingerprint, that verifies over
// the hash. A *SignatureError says what is wrong.
func (l *Ledger) VerifyExternalSignatures(ctx context.Context, hash []byte, parties []coin.PartyID, sigs map[coin.PartyID][]ExternalSignature) error {
	for _, p := range parties {
		key, err := l.externalParty(ctx, l.db, p)
		if IsValidation(err) || errors.Is(err, ErrNotFound) {
			return sigErr("%s has no registered signing key: only external parties sign their transactions", p)
		} else if err != nil {
			return err
		}
		given := sigs[p]
		if len(given) == 0 {
			return sigErr("no signature of %s; each actAs party signs the prepared transaction's hash", p)
		}
		fp := coin.Fingerprint(key)
		var why string
		for _, s := range given {
			switch {
			case s.Format != SignatureFormatConcat && s.Format != SignatureFormatRaw:
				why = fmt.Sprintf("format %s is not supported for Ed25519 (use %s)", s.Format, SignatureFormatConcat)
			case s.Algorithm != SigningAlgorithmEd25519:
				why = fmt.Sprintf("signing algorithm %s is not supported (use %s)", s.Algorithm, SigningAlgorithmEd25519)
			case s.SignedBy != fp:
				why = fmt.Sprintf("signedBy %q is not the fingerprint of %s's key (%s)", s.SignedBy, p, fp)
			case len(s.Signature) != ed25519.SignatureSize || !ed25519.Verify(key, hash, s.Signature):
				why = fmt.Sprintf("the signature by %s does not verify over the hash %x (changed transaction, or a hash computed differently?)", fp, hash)
			default:
				why = ""
			}
			if why == "" {
				break
			}
		}
		if why != "" {
			return sigErr("%s: %s", p, why)
		}
	}
	return nil
}

// PackageVersion is the version this ledger answers for a Daml package
// name: 1.0.0 for the token standard's interface packages and the example
// trading app, the release's splice-amulet version for the coin's own.
func PackageVersion(name string) string {
	if strings.HasPrefix(name, "splice-api-token-") || name == "splice-token-test-trading-app" {
		return "1.0.0"
	}
	return damlPackageVersion
}
