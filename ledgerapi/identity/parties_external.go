package identity

import (
	"errors"
	"net/http"

	"github.com/ccwallet/ccwallet/ledger/external"
	"github.com/ccwallet/ccwallet/ledger/fault"

	"github.com/ccwallet/ccwallet/ledgerapi/internal/canton"
)

// External-party onboarding (PartyManagementService
// GenerateExternalPartyTopology and AllocateExternalParty, Canton 3.3 and
// 3.4): generate-topology returns the party id, the key's fingerprint, the
// three topology transactions in Canton's encoding and their multi-hash;
// allocate checks every signature and creates the party. The rule is the
// ledger's, shared with the validator API's topology/generate and submit.

type signingPublicKeyJSON struct {
	Format  string `json:"format"`
	KeyData []byte `json:"keyData"`
	KeySpec string `json:"keySpec"`
}

type signatureJSON struct {
	Format               string `json:"format"`
	Signature            []byte `json:"signature"`
	SignedBy             string `json:"signedBy"`
	SigningAlgorithmSpec string `json:"signingAlgorithmSpec"`
}

func (s signatureJSON) ledger() external.ExternalSignature {
	return external.ExternalSignature{Format: s.Format, Signature: s.Signature, SignedBy: s.SignedBy, Algorithm: s.SigningAlgorithmSpec}
}

func topologySigs(ss []signatureJSON) []external.ExternalSignature {
	out := make([]external.ExternalSignature, len(ss))
	for i, s := range ss {
		out[i] = s.ledger()
	}
	return out
}

// externalPartyErr maps the ledger's refusals to Canton's codes.
func externalPartyErr(err error) error {
	switch {
	case errors.Is(err, external.ErrNotConnected):
		return canton.Err(canton.CodeNotConnected, "%s", err.Error())
	case errors.Is(err, fault.ErrConflict):
		return canton.Err(canton.CodePartyAlreadyExists, "%s", err.Error())
	}
	return err
}

func (s *Service) GenerateExternalTopology(w http.ResponseWriter, r *http.Request, c *canton.Caller) error {
	if err := c.RequireAdmin(); err != nil {
		return err
	}
	var req struct {
		Synchronizer                    string                `json:"synchronizer"`
		PartyHint                       string                `json:"partyHint"`
		PublicKey                       *signingPublicKeyJSON `json:"publicKey"`
		LocalParticipantObservationOnly bool                  `json:"localParticipantObservationOnly"`
		OtherConfirmingParticipantUids  []string              `json:"otherConfirmingParticipantUids"`
		ConfirmationThreshold           int                   `json:"confirmationThreshold"`
		ObservingParticipantUids        []string              `json:"observingParticipantUids"`
	}
	if err := canton.Decode(r, &req); err != nil {
		return err
	}
	if req.PublicKey == nil {
		return canton.Err(canton.CodeMissingField, "publicKey: the party's Ed25519 public key is required")
	}
	switch {
	case req.LocalParticipantObservationOnly:
		return canton.InvalidArgument("localParticipantObservationOnly: this participant hosts external parties with confirmation rights only")
	case len(req.OtherConfirmingParticipantUids) > 0 || len(req.ObservingParticipantUids) > 0:
		return canton.InvalidArgument("otherConfirmingParticipantUids, observingParticipantUids: multi-hosted parties are not supported; this participant (%s) hosts the party alone", s.l.ParticipantID())
	case req.ConfirmationThreshold < 0 || req.ConfirmationThreshold > 1:
		return canton.InvalidArgument("confirmationThreshold: must be 0 or 1 with one confirming participant, got %d", req.ConfirmationThreshold)
	}
	t, err := s.w.External.GenerateExternalPartyTopology(req.Synchronizer, req.PartyHint,
		external.SigningPublicKey{Format: req.PublicKey.Format, Data: req.PublicKey.KeyData, Spec: req.PublicKey.KeySpec})
	if err != nil {
		return externalPartyErr(err)
	}
	return canton.WriteJSON(w, struct {
		PartyID              string   `json:"partyId"`
		PublicKeyFingerprint string   `json:"publicKeyFingerprint"`
		TopologyTransactions [][]byte `json:"topologyTransactions"`
		MultiHash            []byte   `json:"multiHash"`
	}{string(t.Party), t.Fingerprint, t.Txs, t.MultiHash})
}

func (s *Service) AllocateExternalParty(w http.ResponseWriter, r *http.Request, c *canton.Caller) error {
	if err := c.RequireAdmin(); err != nil {
		return err
	}
	var req struct {
		Synchronizer           string `json:"synchronizer"`
		OnboardingTransactions []struct {
			Transaction []byte          `json:"transaction"`
			Signatures  []signatureJSON `json:"signatures"`
		} `json:"onboardingTransactions"`
		MultiHashSignatures []signatureJSON `json:"multiHashSignatures"`
		IdentityProviderID  string          `json:"identityProviderId"`
	}
	if err := canton.Decode(r, &req); err != nil {
		return err
	}
	if req.IdentityProviderID != "" {
		return canton.InvalidArgument("identityProviderId: only the default identity provider (\"\") is supported")
	}
	n := len(req.OnboardingTransactions) + len(req.MultiHashSignatures)
	for _, t := range req.OnboardingTransactions {
		n += len(t.Signatures)
	}
	if n > canton.MaxSignatures {
		return canton.InvalidArgument("onboardingTransactions, multiHashSignatures: at most %d transactions and signatures together", canton.MaxSignatures)
	}
	txs := make([]external.OnboardingTx, len(req.OnboardingTransactions))
	for i, t := range req.OnboardingTransactions {
		txs[i] = external.OnboardingTx{Tx: t.Transaction, Signatures: topologySigs(t.Signatures)}
	}
	p, err := s.w.External.AllocateExternalParty(r.Context(), req.Synchronizer, txs, topologySigs(req.MultiHashSignatures))
	if err != nil {
		return externalPartyErr(err)
	}
	return canton.WriteJSON(w, map[string]string{"partyId": string(p)})
}
