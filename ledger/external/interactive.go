// Package external owns the workflows of external parties (parties whose
// signing key lives off the node) that are not the core's: their
// onboarding (the topology transactions that create a party from its
// key, through the validator API's topology/generate and topology/submit
// and the Ledger API's GenerateExternalPartyTopology and
// AllocateExternalParty), the Ledger API's interactive submission (which
// transactions this node prepared, until when, and whose signatures
// count), their balance summary, their preapprovals' setup proposals
// and the transactions they sign (prepared here, verified and submitted
// here: a transfer, a setup proposal's acceptance, a send through a
// preapproval, each kind with its executor; other workflows add theirs
// to New). The core keeps what money depends on: the parties' keys, their
// preapprovals, and the rules each kind's effect runs (ledger.Tx).
package external

import (
	"context"
	"crypto/ed25519"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/fault"
	"github.com/ccwallet/ccwallet/ledger/preparedtx"
	"github.com/ccwallet/ccwallet/store"
	"github.com/google/uuid"
)

// The Ledger API's interactive submission (ledgerapi/interactive.go):
// an external party's command is prepared as Canton's PreparedTransaction
// (package preparedtx), signed off the node, and executed. The ledger
// keeps which transactions it prepared, and until when, and holds the
// rule of whose signature counts; the command itself runs through the
// same ledger method as a submit-and-wait.

// Service is the external parties' workflows of one ledger.
type Service struct {
	l *ledger.Ledger
	// kinds are the prepared kinds Submit executes: this package's and
	// those given to New.
	kinds map[string]Executor
}

// New builds the external parties' workflows on l; kinds are the prepared
// kinds other workflows add (ledger/delegations.PreparedKinds), which
// Prepare and Submit then know besides this package's own.
func New(l *ledger.Ledger, kinds ...Kind) *Service {
	s := &Service{l: l}
	s.kinds = s.ownKinds()
	for _, k := range kinds {
		s.kinds[k.Name] = k.Executor
	}
	return s
}

// KindInteractive marks a prepared transaction of the Ledger API's
// interactive submission in the prepared transactions' store.
const KindInteractive = "ledger-api/interactive-submission"

// SignatureError is a prepared transaction whose signatures do not
// authorize it: missing, by a key the party has not registered, in an
// unsupported format, or not over this transaction's hash.
type SignatureError struct{ msg string }

func (e *SignatureError) Error() string { return e.msg }

func sigErr(format string, args ...any) error {
	return &SignatureError{msg: fmt.Sprintf(format, args...)}
}

// PrepareInteractive makes p, which its acting party will sign, this
// node's own and returns the hash that party signs. Its transaction id
// becomes a MAC, under the ledger's key, of everything else the hash
// covers (sealOf), so execute knows what this node prepared, and until
// when (p's maximum ledger time), without a record of it: preparing
// writes nothing. The caller has checked that the acting party is an
// external party (ExternalPartyKey): it prepares only for those.
func (s *Service) PrepareInteractive(p *preparedtx.Prepared, expires time.Time) ([]byte, error) {
	exp := uint64(expires.UnixMicro())
	p.Metadata.MaxLedgerEffectiveTime = &exp
	th, err := preparedtx.TransactionHash(&p.Transaction)
	if err != nil {
		return nil, err
	}
	seal, err := s.sealOf(th, &p.Metadata)
	if err != nil {
		return nil, err
	}
	p.Metadata.TransactionUUID = seal
	mh, err := preparedtx.MetadataHash(&p.Metadata)
	if err != nil {
		return nil, err
	}
	hash := preparedtx.HashOf(th, mh)
	return hash, nil
}

// sealPurpose names the interactive submission's MACs (Ledger.MAC).
const sealPurpose = "ledger-api/interactive-submission/transaction-uuid/v1"

// sealOf is the transaction id that marks a prepared transaction with
// transaction hash th and metadata m as this node's: 122 bits of the MAC
// of th and of m's hash without its id, as a version 4 UUID (Canton reads
// the id as a UUID; a client treats it as opaque).
func (s *Service) sealOf(th []byte, m *preparedtx.Metadata) (string, error) {
	bare := *m
	bare.TransactionUUID = ""
	mh, err := preparedtx.MetadataHash(&bare)
	if err != nil {
		return "", err
	}
	var u uuid.UUID
	copy(u[:], s.l.MAC(sealPurpose, th, mh))
	u[6] = u[6]&0x0f | 0x40 // version 4
	u[8] = u[8]&0x3f | 0x80 // RFC 4122 variant
	return u.String(), nil
}

// InteractivePrepared is when p, whose hash is hash and transaction hash
// th (preparedtx.Hashes), stops being
// executable: ErrNotFound when this node did not prepare it, ErrExpired
// when that time has passed. A sealed preparation (PrepareInteractive)
// is known by its seal, with no read; one without is looked up in the
// prepared transactions' store, where an earlier release recorded what
// it prepared.
func (s *Service) InteractivePrepared(ctx context.Context, p *preparedtx.Prepared, th, hash []byte) (time.Time, error) {
	h := hex.EncodeToString(hash)
	var expires time.Time
	if ok, err := s.sealed(p, th); err != nil {
		return time.Time{}, err
	} else if ok {
		expires = time.UnixMicro(int64(*p.Metadata.MaxLedgerEffectiveTime)).UTC()
	} else {
		r, err := store.PreparedTxByHash(ctx, s.l.DB(), h)
		if errors.Is(err, store.ErrNotFound) || err == nil && r.Kind != KindInteractive {
			return time.Time{}, fmt.Errorf("%w: no transaction with hash %s was prepared by this participant", fault.ErrNotFound, h)
		} else if err != nil {
			return time.Time{}, err
		}
		expires = r.ExpiresAt
	}
	if !s.l.Now().Before(expires) {
		return expires, fmt.Errorf("%w: the prepared transaction %s could be executed until %s; prepare it again", fault.ErrExpired, h, ledger.FormatTime(expires))
	}
	return expires, nil
}

// sealed reports whether p's transaction id, with th its transaction
// hash, is the seal this node gives what it prepares.
func (s *Service) sealed(p *preparedtx.Prepared, th []byte) (bool, error) {
	if p.Metadata.MaxLedgerEffectiveTime == nil {
		return false, nil
	}
	want, err := s.sealOf(th, &p.Metadata)
	if err != nil {
		return false, err
	}
	return subtle.ConstantTimeCompare([]byte(want), []byte(p.Metadata.TransactionUUID)) == 1, nil
}

// VerifyExternalSignatures checks that every submitting party signed
// hash: each must be an external party, and at least one of its
// signatures (its key's threshold is 1) must be an Ed25519 signature by
// its registered key, named by the key's fingerprint, that verifies over
// the hash. A *SignatureError says what is wrong.
func (s *Service) VerifyExternalSignatures(ctx context.Context, hash []byte, parties []coin.PartyID, sigs map[coin.PartyID][]ExternalSignature) error {
	for _, p := range parties {
		key, err := s.ExternalPartyKey(ctx, p)
		if fault.IsValidation(err) || errors.Is(err, fault.ErrNotFound) {
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
		for _, sg := range given {
			switch {
			case sg.Format != SignatureFormatConcat && sg.Format != SignatureFormatRaw:
				why = fmt.Sprintf("format %s is not supported for Ed25519 (use %s)", sg.Format, SignatureFormatConcat)
			case sg.Algorithm != SigningAlgorithmEd25519:
				why = fmt.Sprintf("signing algorithm %s is not supported (use %s)", sg.Algorithm, SigningAlgorithmEd25519)
			case sg.SignedBy != fp:
				why = fmt.Sprintf("signedBy %q is not the fingerprint of %s's key (%s)", sg.SignedBy, p, fp)
			case len(sg.Signature) != ed25519.SignatureSize || !ed25519.Verify(key, hash, sg.Signature):
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
