// Package interactive serves the Ledger API's interactive submission:
// prepare (an external party's command as Canton's PreparedTransaction,
// its Daml-LF values made from the command's JSON, and the hash the party
// signs), execute (the signatures verified over the hash recomputed from
// the submitted bytes, the root node run as the command it was prepared
// from) and the preferred packages. Which commands it prepares, and how
// one runs, are the server's command table's and submit's: they come in
// a Commands when the server builds it (New).
package interactive

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/internal/jsonv1"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/apiread"
	"github.com/ccwallet/ccwallet/ledger/bounds"
	"github.com/ccwallet/ccwallet/ledger/commands"
	"github.com/ccwallet/ccwallet/ledger/external"
	"github.com/ccwallet/ccwallet/ledger/fault"
	"github.com/ccwallet/ccwallet/ledger/preparedtx"
	"github.com/ccwallet/ccwallet/ledger/workflows"
	"github.com/ccwallet/ccwallet/ledgerapi/internal/canton"
	"github.com/ccwallet/ccwallet/ledgerapi/internal/damlid"
	"github.com/ccwallet/ccwallet/web"
)

// An external party's command is prepared as Canton's
// PreparedTransaction (its one root node is the command's create or
// exercise, with the choice argument as an enriched Daml value), the
// party signs the V2 hash off the node, and execute verifies the
// signatures over the hash recomputed from the submitted bytes and runs
// the root node as the same command submit-and-wait runs, under the same
// change id (user, actAs, commandId), so its outcome is stored where
// submit-and-wait's is. Execute answers {} once the command ran; what the
// ledger refuses is answered at once, as submit-and-wait does.

const (
	hashingSchemeV2 = "HASHING_SCHEME_VERSION_V2"
	// lfVersion is the Daml-LF version of the nodes (Canton accepts 2.1).
	lfVersion = "2.1"
)

// Service serves the interactive submission of one ledger's Ledger API.
type Service struct {
	l    *ledger.Ledger
	w    *workflows.Set
	cmds Commands
	// factory is the transfer factory's contract with its payload as a
	// Daml value, once a preparation read it: every wallet SDK transfer
	// exercises it, its content never changes, and while the registry
	// says it is the factory (Registry.IsFactory: forgotten on a restore)
	// it is active, so a preparation that exercises it reads nothing.
	factory atomic.Pointer[inputContract]
}

// inputContract is a contract a preparation exercises: as read, and its
// payload as the prepared transaction's value.
type inputContract struct {
	ct      apiread.LedgerContract
	payload preparedtx.Value
}

// Commands is what the interactive submission takes from the server's
// commands: the command table (what it prepares) and submit (how an
// executed command runs).
type Commands struct {
	// Supported says what a submission may be, for the refusals.
	Supported string
	// Prepares reports whether a choice on target (an interface or
	// template id) is prepared, as submit runs it.
	Prepares func(target, choice string) bool
	// Creates reports whether a CreateCommand of template is prepared.
	Creates func(template string) bool
	// Nonconsuming reports whether a served choice of the coin's own
	// leaves its contract active (the token standard's are this
	// package's).
	Nonconsuming func(target, choice string) bool
	// Precheck refuses at prepare what execute would refuse about party's
	// command's argument.
	Precheck func(r *http.Request, party coin.PartyID, cmd map[string]json.RawMessage) error
	// Submit runs an executed command as submit-and-wait does, for c,
	// under the same change id.
	Submit func(r *http.Request, c *canton.Caller, sub Submission) error
}

// Submission is an executed transaction's one command, as
// submit-and-wait takes it (JsCommands).
type Submission struct {
	Command                              map[string]json.RawMessage
	CommandID                            string
	ActAs                                []string
	UserID, SubmissionID, SynchronizerID string
}

// New is the interactive submission of l with its workflows w, preparing
// and running commands by cmds.
func New(l *ledger.Ledger, w *workflows.Set, cmds Commands) *Service {
	return &Service{l: l, w: w, cmds: cmds}
}

// nonconsuming are the served choices that leave their contract active.
var nonconsuming = map[string]bool{
	"TransferFactory_Transfer": true, "AllocationFactory_Allocate": true, "TransferPreapproval_Send": true,
}

type prepareRequest struct {
	UserID             string                       `json:"userId"`
	CommandID          string                       `json:"commandId"`
	Commands           []map[string]json.RawMessage `json:"commands"`
	MinLedgerTime      json.RawMessage              `json:"minLedgerTime"`
	ActAs              []string                     `json:"actAs"`
	ReadAs             []string                     `json:"readAs"`
	DisclosedContracts []canton.DisclosedContract   `json:"disclosedContracts"`
	SynchronizerID     string                       `json:"synchronizerId"`
	PackagePreference  []string                     `json:"packageIdSelectionPreference"`
	VerboseHashing     bool                         `json:"verboseHashing"`
}

// PrepareSubmission is POST /v2/interactive-submission/prepare. Preparing
// changes nothing on the ledger, so reading as the parties is enough.
func (s *Service) PrepareSubmission(w http.ResponseWriter, r *http.Request, c *canton.Caller) error {
	var req prepareRequest
	if err := canton.Decode(r, &req); err != nil {
		return err
	}
	if req.UserID != "" && req.UserID != c.User.Name {
		return canton.PermissionDenied("userId %q is not the token's user %q", req.UserID, c.User.Name)
	}
	if req.CommandID == "" {
		return canton.Err(canton.CodeMissingField, "commandId: every command needs an id, unique per change")
	}
	if len(req.CommandID) > bounds.MaxIDLength {
		return canton.InvalidArgument("commandId: at most %d bytes", bounds.MaxIDLength)
	}
	if req.SynchronizerID == "" {
		return canton.Err(canton.CodeMissingField, "synchronizerId: name the synchronizer to prepare for (%s)", s.l.SynchronizerID())
	}
	if req.SynchronizerID != s.l.SynchronizerID() {
		return canton.InvalidArgument("synchronizerId: this participant is connected to %s only", s.l.SynchronizerID())
	}
	if len(req.ActAs) != 1 {
		return canton.InvalidArgument("actAs: an interactive submission acts as exactly one external party, not %d", len(req.ActAs))
	}
	party, err := canton.ParseParty("actAs", req.ActAs[0])
	if err != nil {
		return err
	}
	readAs := []coin.PartyID{party}
	for _, a := range req.ReadAs {
		p, err := canton.ParseParty("readAs", a)
		if err != nil {
			return err
		}
		readAs = append(readAs, p)
	}
	if err := c.RequireRead(readAs...); err != nil {
		return err
	}
	if _, err := s.w.External.ExternalPartyKey(r.Context(), party); errors.Is(err, fault.ErrNotFound) {
		return canton.Err(canton.CodePartyNotKnown, "party %s is not known to this participant", party)
	} else if err != nil {
		return canton.InvalidArgument("actAs: %s has no registered signing key; prepare only for external parties, and submit for local ones with /v2/commands/submit-and-wait", party)
	}
	visible := visibility{readAs: readAs, disclosed: map[coin.ContractID]bool{}}
	for i, d := range req.DisclosedContracts {
		cid, _, err := s.l.VerifyBlob(d.CreatedEventBlob)
		if err != nil || string(cid) != d.ContractID {
			return canton.InvalidArgument("disclosedContracts[%d]: the created event blob of %s was not issued by this ledger; disclose what the registry handed out", i, d.ContractID)
		}
		visible.disclosed[cid] = true
	}
	if len(req.Commands) != 1 || len(req.Commands[0]) != 1 {
		return canton.Err(canton.CodeUnsupported, "commands: this participant runs %s", s.cmds.Supported)
	}
	now := s.l.Now()
	expires := now.Add(s.w.External.PreparedTTL())
	seed := make([]byte, 32)
	rand.Read(seed)
	node, inputs, err := s.rootNode(r, party, visible, req.Commands[0])
	if err != nil {
		return err
	}
	if err := s.cmds.Precheck(r, party, req.Commands[0]); err != nil {
		return err
	}
	p := &preparedtx.Prepared{
		Transaction: preparedtx.Transaction{Version: lfVersion, Roots: []string{"0"}, Nodes: []preparedtx.Node{node},
			Seeds: []preparedtx.NodeSeed{{NodeID: 0, Seed: seed}}},
		Metadata: preparedtx.Metadata{
			ActAs: []string{string(party)}, CommandID: req.CommandID, SynchronizerID: s.l.SynchronizerID(),
			PreparationTime: uint64(now.UnixMicro()), InputContracts: inputs,
		},
	}
	hash, err := s.w.External.PrepareInteractive(p, expires)
	if err != nil {
		return fmt.Errorf("prepare the transaction: %w", err)
	}
	raw := preparedtx.Marshal(p)
	details := ""
	if req.VerboseHashing {
		th, _ := preparedtx.TransactionHash(&p.Transaction)
		mh, _ := preparedtx.MetadataHash(&p.Metadata)
		details = fmt.Sprintf("scheme V2: SHA-256(00000030 02 transaction %x metadata %x) = %x", th, mh, hash)
	}
	return web.WriteJSONBody(w, http.StatusOK, prepareAnswer(raw, hash, details))
}

// prepareAnswer is prepare's answer, with hashingDetails when details is
// not empty: the bytes json.Marshal writes for it as a map (keys sorted;
// base64 needs no escaping), appended without the encoded transaction's
// copy and scan.
func prepareAnswer(raw, hash []byte, details string) []byte {
	b := make([]byte, 0, 128+len(details)+base64.StdEncoding.EncodedLen(len(raw)+len(hash)))
	b = append(b, '{')
	if details != "" {
		b = append(b, `"hashingDetails":`...)
		b = commands.AppendJSONString(b, details)
		b = append(b, ',')
	}
	b = append(b, `"hashingSchemeVersion":"`+hashingSchemeV2+`","preparedTransaction":"`...)
	b = base64.StdEncoding.AppendEncode(b, raw)
	b = append(b, `","preparedTransactionHash":"`...)
	b = base64.StdEncoding.AppendEncode(b, hash)
	return append(b, "\"}\n"...)
}

// rootNode is the command as a transaction node, and the contracts it
// uses as input contracts.
func (s *Service) rootNode(r *http.Request, party coin.PartyID, visible visibility, cmd map[string]json.RawMessage) (preparedtx.Node, []preparedtx.InputContract, error) {
	acting := []string{string(party)}
	if raw, ok := cmd["CreateCommand"]; ok {
		var cc struct {
			TemplateID      string          `json:"templateId"`
			CreateArguments json.RawMessage `json:"createArguments"`
		}
		if err := jsonv1.Unmarshal(raw, &cc); err != nil {
			return preparedtx.Node{}, nil, &canton.DecodeError{Status: http.StatusBadRequest, Msg: "commands[0].CreateCommand: " + err.Error()}
		}
		tmpl, err := damlid.Resolve("commands[0].CreateCommand.templateId", cc.TemplateID, damlid.Template)
		if err != nil {
			return preparedtx.Node{}, nil, err
		}
		if !s.cmds.Creates(tmpl) {
			return preparedtx.Node{}, nil, canton.Err(canton.CodeUnsupported, "create of %s: this participant runs %s", tmpl, s.cmds.Supported)
		}
		id := identifier(tmpl)
		arg, err := damlValue(cc.CreateArguments, "", &id, 0)
		if err != nil {
			return preparedtx.Node{}, nil, err
		}
		local := make([]byte, 32)
		rand.Read(local)
		return preparedtx.Node{ID: "0", Create: &preparedtx.Create{
			LfVersion: lfVersion, ContractID: "00" + hex.EncodeToString(local), PackageName: damlid.NameOf(tmpl), TemplateID: id,
			Argument: arg, Signatories: acting, Stakeholders: acting,
		}}, nil, nil
	}
	raw, ok := cmd["ExerciseCommand"]
	if !ok {
		return preparedtx.Node{}, nil, canton.Err(canton.CodeUnsupported, "commands[0]: this participant runs %s", s.cmds.Supported)
	}
	var ex canton.ExerciseCommand
	if err := jsonv1.Unmarshal(raw, &ex); err != nil {
		return preparedtx.Node{}, nil, &canton.DecodeError{Status: http.StatusBadRequest, Msg: "commands[0].ExerciseCommand: " + err.Error()}
	}
	target, err := damlid.Resolve("commands[0].ExerciseCommand.templateId", ex.TemplateID, damlid.Interface)
	if err != nil {
		if target, err = damlid.Resolve("commands[0].ExerciseCommand.templateId", ex.TemplateID, damlid.Template); err != nil {
			return preparedtx.Node{}, nil, canton.Err(canton.CodeUnsupported, "commands[0].ExerciseCommand.templateId %q: this participant runs %s", ex.TemplateID, s.cmds.Supported)
		}
	}
	if !s.cmds.Prepares(target, ex.Choice) {
		return preparedtx.Node{}, nil, canton.Err(canton.CodeUnsupported, "choice %s on %s: this participant runs %s", ex.Choice, target, s.cmds.Supported)
	}
	cid, err := coin.ParseContractID(ex.ContractID)
	if err != nil {
		return preparedtx.Node{}, nil, canton.InvalidArgument("commands[0].ExerciseCommand.contractId: %v", err)
	}
	in, err := s.inputContract(r, cid)
	ct := in.ct
	if errors.Is(err, fault.ErrNotFound) || err == nil && (ct.ArchivedOffset != 0 || ct.TemplateID != target && !apiread.Implements(ct.TemplateID, target) || !visible.sees(ct)) {
		return preparedtx.Node{}, nil, canton.Err(canton.CodeContractNotFound, "%s %s not found, not active, or neither visible to the parties nor disclosed", target, cid)
	} else if err != nil {
		return preparedtx.Node{}, nil, err
	}
	tmpl := identifier(ct.TemplateID)
	var iface *preparedtx.Identifier
	if target != ct.TemplateID {
		id := identifier(target)
		iface = &id
	}
	// The choice's argument is the record named after the choice, in the
	// module that declares it.
	argID := identifier(target)
	argID.EntityName = ex.Choice
	arg, err := damlValue(ex.ChoiceArgument, "", &argID, 0)
	if err != nil {
		return preparedtx.Node{}, nil, err
	}
	payload := in.payload
	sigs, holders := canton.SortedParties(ct.Signatories), canton.SortedParties(ct.Stakeholders())
	blob, _ := base64.StdEncoding.DecodeString(ct.CreatedEventBlob)
	input := preparedtx.InputContract{CreatedAt: uint64(ct.CreatedAt.UnixMicro()), EventBlob: blob, Create: preparedtx.Create{
		LfVersion: lfVersion, ContractID: string(cid), PackageName: damlid.NameOf(ct.TemplateID), TemplateID: tmpl,
		Argument: payload, Signatories: sigs, Stakeholders: holders,
	}}
	return preparedtx.Node{ID: "0", Exercise: &preparedtx.Exercise{
		LfVersion: lfVersion, ContractID: string(cid), PackageName: damlid.NameOf(ct.TemplateID), TemplateID: tmpl,
		Signatories: sigs, Stakeholders: holders, ActingParties: acting, InterfaceID: iface, ChoiceID: ex.Choice,
		ChosenValue: arg, Consuming: !nonconsuming[ex.Choice] && !s.cmds.Nonconsuming(target, ex.Choice),
	}}, []preparedtx.InputContract{input}, nil
}

// inputContract is the contract cid a preparation exercises, read (an
// error wrapping fault.ErrNotFound when there is none) or, for the
// transfer factory, remembered.
func (s *Service) inputContract(r *http.Request, cid coin.ContractID) (inputContract, error) {
	factory := s.w.Registry.IsFactory(cid)
	if in := s.factory.Load(); factory && in != nil && in.ct.ContractID == cid {
		return *in, nil
	}
	ct, err := s.w.APIRead.LedgerContractByID(r.Context(), cid)
	if err != nil {
		return inputContract{}, err
	}
	tmpl := identifier(ct.TemplateID)
	payload, err := damlValue(ct.Payload, "", &tmpl, 0)
	if err != nil {
		return inputContract{}, fmt.Errorf("contract %s: %w", cid, err)
	}
	in := inputContract{ct: ct, payload: payload}
	if factory && ct.ArchivedOffset == 0 {
		s.factory.Store(&in)
	}
	return in, nil
}

// visibility is what a preparation may use: contracts of which a party
// it reads as is a stakeholder, and the contracts it disclosed. The
// prepared transaction carries the contract's payload, so nothing else
// may be named.
type visibility struct {
	readAs    []coin.PartyID
	disclosed map[coin.ContractID]bool
}

func (v visibility) sees(ct apiread.LedgerContract) bool {
	if v.disclosed[ct.ContractID] {
		return true
	}
	for _, p := range ct.Stakeholders() {
		if slices.Contains(v.readAs, p) {
			return true
		}
	}
	return false
}

// identifier is a "#name:Module:Entity" id by package id.
func identifier(id string) preparedtx.Identifier {
	name, rest, _ := strings.Cut(strings.TrimPrefix(id, "#"), ":")
	mod, ent, _ := strings.Cut(rest, ":")
	return preparedtx.Identifier{PackageID: damlid.PackageID(name), ModuleName: mod, EntityName: ent}
}

type executeRequest struct {
	PreparedTransaction *string `json:"preparedTransaction"`
	PartySignatures     *struct {
		Signatures []struct {
			Party      string `json:"party"`
			Signatures []struct {
				Format               string `json:"format"`
				Signature            string `json:"signature"`
				SignedBy             string `json:"signedBy"`
				SigningAlgorithmSpec string `json:"signingAlgorithmSpec"`
			} `json:"signatures"`
		} `json:"signatures"`
	} `json:"partySignatures"`
	DeduplicationPeriod  json.RawMessage `json:"deduplicationPeriod"`
	SubmissionID         *string         `json:"submissionId"`
	UserID               *string         `json:"userId"`
	HashingSchemeVersion *string         `json:"hashingSchemeVersion"`
	MinLedgerTime        json.RawMessage `json:"minLedgerTime"`
}

// ExecuteSubmission is POST /v2/interactive-submission/execute.
func (s *Service) ExecuteSubmission(w http.ResponseWriter, r *http.Request, c *canton.Caller) error {
	var req executeRequest
	if err := canton.Decode(r, &req); err != nil {
		return err
	}
	for field, missing := range map[string]bool{"deduplicationPeriod": len(req.DeduplicationPeriod) == 0, "submissionId": req.SubmissionID == nil,
		"userId": req.UserID == nil, "hashingSchemeVersion": req.HashingSchemeVersion == nil} {
		if missing {
			return &canton.DecodeError{Status: http.StatusBadRequest, Msg: "Missing required field: " + field}
		}
	}
	if v := *req.HashingSchemeVersion; v != hashingSchemeV2 && v != "HASHING_SCHEME_VERSION_UNSPECIFIED" {
		// Not a name of the enum: the JSON layer cannot decode it.
		return &canton.DecodeError{Status: http.StatusBadRequest, Msg: "hashingSchemeVersion: unknown HashingSchemeVersion " + strconv.Quote(v)}
	}
	if *req.HashingSchemeVersion != hashingSchemeV2 {
		return canton.InvalidArgument("hashingSchemeVersion: this participant hashes with %s, not %q", hashingSchemeV2, *req.HashingSchemeVersion)
	}
	if *req.UserID != "" && *req.UserID != c.User.Name {
		return canton.PermissionDenied("userId %q is not the token's user %q", *req.UserID, c.User.Name)
	}
	if req.PreparedTransaction == nil || *req.PreparedTransaction == "" {
		return canton.Err(canton.CodeMissingField, "preparedTransaction: send the preparedTransaction that prepare returned")
	}
	raw, err := base64.StdEncoding.DecodeString(*req.PreparedTransaction)
	if err != nil {
		return &canton.DecodeError{Status: http.StatusBadRequest, Msg: "preparedTransaction: not base64: " + err.Error()}
	}
	p, err := preparedtx.Unmarshal(raw)
	if err != nil {
		return &canton.DecodeError{Status: http.StatusBadRequest, Msg: "preparedTransaction: " + err.Error()}
	}
	// Executing needs the right to act as each submitter, or to execute as
	// any party (the party's own signature is checked below).
	var actAs []coin.PartyID
	for _, a := range p.Metadata.ActAs {
		party, err := canton.ParseParty("preparedTransaction.metadata.submitterInfo.actAs", a)
		if err != nil {
			return err
		}
		if !c.ExecuteAny && !slices.Contains(c.ActAs, party) {
			return canton.PermissionDenied("user %q has no right to act as party %s", c.User.Name, party)
		}
		actAs = append(actAs, party)
	}
	if len(actAs) != 1 {
		return canton.Err(canton.CodeInvalidExternalTransaction, "Provided external transaction is invalid: it acts as %d parties; only single-party submissions are supported", len(actAs))
	}
	hash, th, err := preparedtx.Hashes(p)
	if err != nil {
		return canton.Err(canton.CodeInvalidExternalTransaction, "Provided external transaction is invalid: %v", err)
	}
	sigs, err := signaturesOf(&req)
	if err != nil {
		return err
	}
	if err := s.w.External.VerifyExternalSignatures(r.Context(), hash, actAs, sigs); err != nil {
		var se *external.SignatureError
		if errors.As(err, &se) {
			return canton.Err(canton.CodeInvalidExternalSignature, "Provided external signatures are invalid: %s", se.Error())
		}
		return err
	}
	if _, err := s.w.External.InteractivePrepared(r.Context(), p, th, hash); errors.Is(err, fault.ErrNotFound) {
		return canton.Err(canton.CodeInvalidExternalTransaction, "Provided external transaction is invalid: %v; execute what prepare returned, unchanged", err)
	} else if errors.Is(err, fault.ErrExpired) {
		return canton.Err(canton.CodeLedgerTimeOutsideBounds, "The submitted command with a ledger effective time of %s is outside of the bounds required by the transaction: %v",
			canton.FormatTime(s.l.Now()), err)
	} else if err != nil {
		return err
	}
	cmd, err := commandOf(p)
	if err != nil {
		return canton.Err(canton.CodeInvalidExternalTransaction, "Provided external transaction is invalid: %v", err)
	}
	sub := Submission{
		Command: cmd, CommandID: p.Metadata.CommandID, ActAs: p.Metadata.ActAs,
		UserID: *req.UserID, SubmissionID: *req.SubmissionID, SynchronizerID: p.Metadata.SynchronizerID,
	}
	// The parties signed it: submit may act as them, also for a user that
	// may execute as any party without acting as them.
	sc := *c
	sc.Signed = true
	if c.ExecuteAny {
		sc.ActAs = append(slices.Clone(c.ActAs), actAs...)
	}
	c = &sc
	if err := s.cmds.Submit(r, c, sub); err != nil {
		// Execute is asynchronous in Canton: a change executed before is
		// reported in the completions (recorded by execute), not here.
		if ce := canton.Of(err); ce.Code != canton.CodeDuplicateCommand {
			return err
		}
	}
	return canton.WriteJSON(w, struct{}{})
}

// signaturesOf decodes the request's signatures by party.
func signaturesOf(req *executeRequest) (map[coin.PartyID][]external.ExternalSignature, error) {
	out := map[coin.PartyID][]external.ExternalSignature{}
	if req.PartySignatures == nil {
		return out, nil
	}
	n := 0
	for i, ps := range req.PartySignatures.Signatures {
		party, err := canton.ParseParty(fmt.Sprintf("partySignatures.signatures[%d].party", i), ps.Party)
		if err != nil {
			return nil, err
		}
		for j, sg := range ps.Signatures {
			if n++; n > canton.MaxSignatures {
				return nil, canton.InvalidArgument("partySignatures: at most %d signatures", canton.MaxSignatures)
			}
			b, err := base64.StdEncoding.DecodeString(sg.Signature)
			if err != nil {
				return nil, canton.InvalidArgument("partySignatures.signatures[%d].signatures[%d].signature: not base64: %v", i, j, err)
			}
			out[party] = append(out[party], external.ExternalSignature{Format: sg.Format, Signature: b, SignedBy: sg.SignedBy, Algorithm: sg.SigningAlgorithmSpec})
		}
	}
	return out, nil
}

// commandOf turns the prepared transaction's one root node back into the
// Ledger API command it was prepared from.
func commandOf(p *preparedtx.Prepared) (map[string]json.RawMessage, error) {
	if len(p.Transaction.Roots) != 1 {
		return nil, fmt.Errorf("%d root nodes; this participant prepares one", len(p.Transaction.Roots))
	}
	var root *preparedtx.Node
	for i := range p.Transaction.Nodes {
		if p.Transaction.Nodes[i].ID == p.Transaction.Roots[0] {
			root = &p.Transaction.Nodes[i]
		}
	}
	if root == nil {
		return nil, fmt.Errorf("root node %q is missing", p.Transaction.Roots[0])
	}
	ref := func(id preparedtx.Identifier) string { return id.PackageID + ":" + id.ModuleName + ":" + id.EntityName }
	// The command's object, its names in encoding/json's (sorted) order.
	var b []byte
	var err error
	if c := root.Create; c != nil {
		b = append(b, `{"createArguments":`...)
		if b, err = appendJSONValue(b, c.Argument); err != nil {
			return nil, err
		}
		b = append(b, `,"templateId":`...)
		b = append(commands.AppendJSONString(b, ref(c.TemplateID)), '}')
		return map[string]json.RawMessage{"CreateCommand": b}, nil
	}
	x := root.Exercise
	if x == nil {
		return nil, fmt.Errorf("root node %q is neither a create nor an exercise", root.ID)
	}
	target := x.TemplateID
	if x.InterfaceID != nil {
		target = *x.InterfaceID
	}
	b = append(b, `{"choice":`...)
	b = commands.AppendJSONString(b, x.ChoiceID)
	b = append(b, `,"choiceArgument":`...)
	if b, err = appendJSONValue(b, x.ChosenValue); err != nil {
		return nil, err
	}
	b = append(b, `,"contractId":`...)
	b = commands.AppendJSONString(b, x.ContractID)
	b = append(b, `,"templateId":`...)
	b = append(commands.AppendJSONString(b, ref(target)), '}')
	return map[string]json.RawMessage{"ExerciseCommand": b}, nil
}
