package external

import (
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger/fault"
	"github.com/ccwallet/ccwallet/ledger/topologytx"
)

// External-party onboarding as Canton's Ledger API does it
// (PartyManagementService GenerateExternalPartyTopology and
// AllocateExternalParty): the same three transactions and the same rule
// as the validator API's topology/generate and topology/submit
// (external.go), with the key given as Canton's SigningPublicKey and the
// signatures as Canton's Signature, possibly one over the multi-hash of
// all transactions.

// Canton's key and signature enum names, as the JSON Ledger API spells them.
const (
	KeyFormatRaw      = "CRYPTO_KEY_FORMAT_RAW"
	KeyFormatDerSPKI  = "CRYPTO_KEY_FORMAT_DER_X509_SUBJECT_PUBLIC_KEY_INFO"
	KeySpecCurve25519 = "SIGNING_KEY_SPEC_EC_CURVE25519"
)

// SigningPublicKey is a key as Canton's Ledger API sends it.
type SigningPublicKey struct {
	Format string
	Data   []byte
	Spec   string
}

// Ed25519 returns the raw Ed25519 key k holds: raw 32 bytes or a DER
// SubjectPublicKeyInfo around them, with the Curve25519 key spec. Anything
// else is a validation error naming what was sent.
func (k SigningPublicKey) Ed25519() (ed25519.PublicKey, error) {
	if k.Spec != KeySpecCurve25519 {
		return nil, fault.Invalid("publicKey.keySpec", "must be %s (Ed25519), the only key type external parties may use here; got %q", KeySpecCurve25519, k.Spec)
	}
	switch k.Format {
	case KeyFormatRaw:
		return ParsePublicKey("publicKey.keyData", hex.EncodeToString(k.Data))
	case KeyFormatDerSPKI:
		pub, ok := ed25519FromSPKI(k.Data)
		if !ok {
			return nil, fault.Invalid("publicKey.keyData", "is not a DER SubjectPublicKeyInfo of an Ed25519 key (%d bytes)", len(k.Data))
		}
		return pub, nil
	}
	return nil, fault.Invalid("publicKey.format", "must be %s or %s, got %q", KeyFormatRaw, KeyFormatDerSPKI, k.Format)
}

// ExternalTopology is what generate-topology answers.
type ExternalTopology struct {
	Party       coin.PartyID
	Fingerprint string
	Txs         [][]byte
	MultiHash   []byte
}

// GenerateExternalPartyTopology derives the party (hint::fingerprint(key))
// and the three onboarding transactions for it, on synchronizer, which
// must be this node's. Nothing is stored.
func (s *Service) GenerateExternalPartyTopology(synchronizer, hint string, key SigningPublicKey) (ExternalTopology, error) {
	if err := s.checkSynchronizer(synchronizer); err != nil {
		return ExternalTopology{}, err
	}
	pub, err := key.Ed25519()
	if err != nil {
		return ExternalTopology{}, err
	}
	party, _, err := s.GenerateExternalTopology(hint, hex.EncodeToString(pub))
	if err != nil {
		return ExternalTopology{}, err
	}
	txs := s.topologyTxs(party, pub)
	return ExternalTopology{Party: party, Fingerprint: party.Namespace(), Txs: txs, MultiHash: topologytx.MultiHash(txs)}, nil
}

// ErrNotConnected is a synchronizer this node is not on.
var ErrNotConnected = errors.New("this participant is not connected to synchronizer")

func (s *Service) checkSynchronizer(synchronizer string) error {
	if synchronizer == "" {
		return fault.Invalid("synchronizer", "is required (this participant is connected to %s)", s.l.SynchronizerID())
	}
	if synchronizer != s.l.SynchronizerID() {
		return fmt.Errorf("%w %s; it is connected to %s only", ErrNotConnected, synchronizer, s.l.SynchronizerID())
	}
	return nil
}

// OnboardingTx is one signed onboarding transaction.
type OnboardingTx struct {
	Tx         []byte
	Signatures []ExternalSignature
}

// AllocateExternalParty creates the party txs onboard, on synchronizer.
// txs must be exactly the three transactions generate returns for the
// party and the key they name; every signature must be an Ed25519
// signature (CONCAT or RAW) by that key (signedBy its fingerprint) and
// verify, multi over the multi-hash of all txs and the others over their
// transaction's hash; and each transaction must be covered by one. Any
// refusal creates nothing; a party that exists already is ErrConflict.
func (s *Service) AllocateExternalParty(ctx context.Context, synchronizer string, txs []OnboardingTx, multi []ExternalSignature) (coin.PartyID, error) {
	if err := s.checkSynchronizer(synchronizer); err != nil {
		return "", err
	}
	if len(txs) == 0 {
		return "", fault.Invalid("onboardingTransactions", "is required: the transactions generate-topology returned")
	}
	raws := make([][]byte, len(txs))
	var party coin.PartyID
	var pub ed25519.PublicKey
	for i, t := range txs {
		tx, err := topologytx.Decode(t.Tx)
		if err != nil {
			return "", fault.Invalid(fmt.Sprintf("onboardingTransactions[%d].transaction", i), "is not a topology transaction: %v", err)
		}
		if tx.Kind == topologytx.PartyToParticipant {
			party = coin.PartyID(tx.Party)
		}
		if tx.Kind == topologytx.PartyToKeyMapping && len(tx.Key) == ed25519.PublicKeySize {
			pub = ed25519.PublicKey(tx.Key)
		}
		raws[i] = t.Tx
	}
	if party == "" {
		return "", fault.Invalid("onboardingTransactions", "the PartyToParticipant transaction is missing")
	}
	if pub == nil {
		return "", fault.Invalid("onboardingTransactions", "the PartyToKeyMapping transaction with the party's Ed25519 key is missing")
	}
	if _, err := coin.ParsePartyID(string(party)); err != nil {
		return "", fault.Invalid("onboardingTransactions", "%v", err)
	}
	fp := coin.Fingerprint(pub)
	if party.Namespace() != fp {
		return "", fault.Invalid("onboardingTransactions", "party %s is not in the namespace of its key (%s)", party, fp)
	}
	check := func(field string, s ExternalSignature, hash []byte) error {
		if s.SignedBy != fp {
			return fault.Invalid(field+".signedBy", "must be the party's key fingerprint %s, got %q", fp, s.SignedBy)
		}
		if s.Format != SignatureFormatConcat && s.Format != SignatureFormatRaw {
			return fault.Invalid(field+".format", "must be %s or %s for an Ed25519 signature, got %q", SignatureFormatConcat, SignatureFormatRaw, s.Format)
		}
		if s.Algorithm != SigningAlgorithmEd25519 {
			return fault.Invalid(field+".signingAlgorithmSpec", "must be %s, got %q", SigningAlgorithmEd25519, s.Algorithm)
		}
		return VerifySignature(field+".signature", pub, hash, hex.EncodeToString(s.Signature))
	}
	multiHash := topologytx.MultiHash(raws)
	for i, s := range multi {
		if err := check(fmt.Sprintf("multiHashSignatures[%d]", i), s, multiHash); err != nil {
			return "", err
		}
	}
	err := s.checkOnboarding(party, pub, raws, func(i int, hash []byte) error {
		for j, s := range txs[i].Signatures {
			if err := check(fmt.Sprintf("onboardingTransactions[%d].signatures[%d]", i, j), s, hash); err != nil {
				return err
			}
		}
		if len(multi) == 0 && len(txs[i].Signatures) == 0 {
			return fault.Invalid(fmt.Sprintf("onboardingTransactions[%d]", i), "is not signed: sign it or the multi-hash with the party's key")
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	if err := s.storeExternalParty(ctx, party, pub); err != nil {
		return "", err
	}
	return party, nil
}
