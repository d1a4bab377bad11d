package api

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"time"

	"github.com/ccwallet/ccwallet/internal/jsonv1"
	"github.com/ccwallet/ccwallet/ledger/fault"
	ledgerregistry "github.com/ccwallet/ccwallet/ledger/registry"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/allocationdata"
	"github.com/ccwallet/ccwallet/web"
)

// The token-standard registry APIs (transfer-instruction-v1.yaml,
// token-metadata-v1.yaml). Like the real registry they need no token.

type getChoiceContextRequest struct {
	Meta               map[string]string `json:"meta,omitempty"`
	ExcludeDebugFields bool              `json:"excludeDebugFields,omitempty"`
}

type disclosedContractDTO struct {
	TemplateID       string          `json:"templateId"`
	ContractID       string          `json:"contractId"`
	CreatedEventBlob string          `json:"createdEventBlob"`
	SynchronizerID   string          `json:"synchronizerId"`
	DebugPackageName string          `json:"debugPackageName,omitempty"`
	DebugPayload     json.RawMessage `json:"debugPayload,omitempty"`
	DebugCreatedAt   string          `json:"debugCreatedAt,omitempty"`
}

type choiceContextData struct {
	Values map[string]ledgerregistry.ContextValue `json:"values"`
}

type choiceContextDTO struct {
	ChoiceContextData  choiceContextData      `json:"choiceContextData"`
	DisclosedContracts []disclosedContractDTO `json:"disclosedContracts"`
}

type getFactoryRequest struct {
	ChoiceArguments    *json.RawMessage `json:"choiceArguments"`
	ExcludeDebugFields bool             `json:"excludeDebugFields,omitempty"`
}

type transferFactoryArgs struct {
	ExpectedAdmin coin.PartyID `json:"expectedAdmin"`
	Transfer      *struct {
		Sender       string `json:"sender"`
		Receiver     string `json:"receiver"`
		Amount       string `json:"amount"`
		InstrumentID struct {
			Admin string `json:"admin"`
			ID    string `json:"id"`
		} `json:"instrumentId"`
	} `json:"transfer"`
}

type transferFactoryWithChoiceContext struct {
	FactoryID     string           `json:"factoryId"`
	TransferKind  string           `json:"transferKind"`
	ChoiceContext choiceContextDTO `json:"choiceContext"`
}

func choiceContextResponse(cc ledgerregistry.ChoiceContext, excludeDebug bool) choiceContextDTO {
	resp := choiceContextDTO{ChoiceContextData: choiceContextData{Values: cc.Values}, DisclosedContracts: make([]disclosedContractDTO, 0, len(cc.Disclosed))}
	for _, d := range cc.Disclosed {
		dc := disclosedContractDTO{
			TemplateID: d.Contract.TemplateID, ContractID: string(d.Contract.ContractID),
			CreatedEventBlob: d.Contract.CreatedEventBlob, SynchronizerID: d.Contract.SynchronizerID,
		}
		if !excludeDebug {
			dc.DebugPackageName, dc.DebugPayload, dc.DebugCreatedAt = d.PackageName, d.Contract.Payload, ledger.FormatTime(d.Contract.CreatedAt)
		}
		resp.DisclosedContracts = append(resp.DisclosedContracts, dc)
	}
	return resp
}

// getTransferInstructionChoiceContext answers POST
// /registry/transfer-instruction/v1/{transferInstructionId}/choice-contexts/{accept,reject,withdraw}.
func (h registry) getTransferInstructionChoiceContext(move ledger.InstructionMove) apiFunc {
	return choiceContextOf("transferInstructionId", func(ctx context.Context, cid coin.ContractID) (ledgerregistry.ChoiceContext, error) {
		return h.w.Registry.InstructionChoiceContext(ctx, cid, move)
	})
}

// choiceContextOf answers a registry's choice-context request for the
// contract named by the path parameter param.
func choiceContextOf(param string, get func(context.Context, coin.ContractID) (ledgerregistry.ChoiceContext, error)) apiFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		raw := r.PathValue(param)
		cid, err := coin.ParseContractID(raw)
		if err != nil {
			return badRequest(fmt.Sprintf("%s: malformed contract id %q", param, raw))
		}
		var req getChoiceContextRequest
		if err := web.DecodeJSON(r, &req); err != nil {
			return err
		}
		cc, err := get(r.Context(), cid)
		if err != nil {
			return err
		}
		return web.WriteJSON(w, http.StatusOK, choiceContextResponse(cc, req.ExcludeDebugFields))
	}
}

// getTransferFactory answers POST /registry/transfer-instruction/v1/transfer-factory.
func (h registry) getTransferFactory(w http.ResponseWriter, r *http.Request) error {
	var req getFactoryRequest
	if err := web.DecodeJSON(r, &req); err != nil {
		return err
	}
	const invalidArgs = "Field choiceArguments does not contain a valid TransferFactory_Transfer"
	if req.ChoiceArguments == nil {
		return badRequest("choiceArguments: is required")
	}
	var args transferFactoryArgs
	if err := jsonv1.Unmarshal(*req.ChoiceArguments, &args); err != nil || args.Transfer == nil {
		return badRequest(invalidArgs)
	}
	sender, err1 := coin.ParsePartyID(args.Transfer.Sender)
	receiver, err2 := coin.ParsePartyID(args.Transfer.Receiver)
	amount, err3 := coin.ParseCanonical(args.Transfer.Amount)
	if err1 != nil || err2 != nil || err3 != nil || !amount.IsPositive() {
		return badRequest(invalidArgs)
	}
	if id := args.Transfer.InstrumentID; id.ID != ledger.InstrumentID || id.Admin != string(h.l.DSO()) {
		return badRequest(fmt.Sprintf("%s: unknown instrument %s/%s; this registry serves %s/%s", invalidArgs, id.Admin, id.ID, h.l.DSO(), ledger.InstrumentID))
	}
	f, err := h.w.Registry.TransferFactoryFor(r.Context(), sender, receiver)
	if err != nil {
		return err
	}
	key, now := factoryJSONKey{f.Answer, req.ExcludeDebugFields}, time.Now()
	if f.Answer != 0 {
		if body, ok := h.factoryJSON.Get(key, now); ok {
			return web.WriteJSONBody(w, http.StatusOK, body)
		}
	}
	body, err := web.MarshalJSONBody(transferFactoryWithChoiceContext{
		FactoryID: string(f.FactoryID), TransferKind: string(f.Kind), ChoiceContext: choiceContextResponse(f.Context, req.ExcludeDebugFields),
	})
	if err != nil {
		return err
	}
	if f.Answer != 0 {
		h.factoryJSON.Put(key, body, now, h.factoryJSON.Generation())
	}
	return web.WriteJSONBody(w, http.StatusOK, body)
}

// factoryJSONKey names a transfer-factory answer's JSON: the registry's
// remembered answer, with or without the debug fields.
type factoryJSONKey struct {
	answer       uint64
	excludeDebug bool
}

// factoryJSONTTL and maxFactoryJSON bound the answers' JSON kept: an
// answer is remembered for a second at most (registry.memoTTL), and the
// JSON of the answers to the receivers most in use is what saves the
// encoding (8-13 KB each, about a tenth of the wallet's CPU per Ledger API
// transfer, bench/NOTES.md).
const (
	factoryJSONTTL = 2 * time.Second
	maxFactoryJSON = 256
)

// allocation-instruction-v1.yaml and allocation-v1.yaml

type allocationFactoryArgs struct {
	ExpectedAdmin coin.PartyID `json:"expectedAdmin"`
	Allocation    *struct {
		TransferLeg *struct {
			Sender       string `json:"sender"`
			Receiver     string `json:"receiver"`
			Amount       string `json:"amount"`
			InstrumentID struct {
				Admin string `json:"admin"`
				ID    string `json:"id"`
			} `json:"instrumentId"`
		} `json:"transferLeg"`
	} `json:"allocation"`
}

type factoryWithChoiceContext struct {
	FactoryID     string           `json:"factoryId"`
	ChoiceContext choiceContextDTO `json:"choiceContext"`
}

// getAllocationFactory answers POST /registry/allocation-instruction/v1/allocation-factory.
func (h registry) getAllocationFactory(w http.ResponseWriter, r *http.Request) error {
	var req getFactoryRequest
	if err := web.DecodeJSON(r, &req); err != nil {
		return err
	}
	const invalidArgs = "Field choiceArguments does not contain a valid AllocationFactory_Allocate"
	if req.ChoiceArguments == nil {
		return badRequest("choiceArguments: is required")
	}
	var args allocationFactoryArgs
	if err := jsonv1.Unmarshal(*req.ChoiceArguments, &args); err != nil || args.Allocation == nil || args.Allocation.TransferLeg == nil {
		return badRequest(invalidArgs)
	}
	leg := args.Allocation.TransferLeg
	_, err1 := coin.ParsePartyID(leg.Sender)
	_, err2 := coin.ParsePartyID(leg.Receiver)
	amount, err3 := coin.ParseCanonical(leg.Amount)
	if err1 != nil || err2 != nil || err3 != nil || !amount.IsPositive() {
		return badRequest(invalidArgs)
	}
	if id := leg.InstrumentID; id.ID != ledger.InstrumentID || id.Admin != string(h.l.DSO()) {
		return badRequest(fmt.Sprintf("%s: unknown instrument %s/%s; this registry serves %s/%s", invalidArgs, id.Admin, id.ID, h.l.DSO(), ledger.InstrumentID))
	}
	f, err := h.w.Registry.AllocationFactory(r.Context())
	if err != nil {
		return err
	}
	return web.WriteJSON(w, http.StatusOK, factoryWithChoiceContext{
		FactoryID: string(f.FactoryID), ChoiceContext: choiceContextResponse(f.Context, req.ExcludeDebugFields),
	})
}

// getAllocationChoiceContext answers POST
// /registry/allocations/v1/{allocationId}/choice-contexts/{execute-transfer,withdraw,cancel}.
func (h registry) getAllocationChoiceContext(move allocationdata.AllocationMove) apiFunc {
	return choiceContextOf("allocationId", func(ctx context.Context, cid coin.ContractID) (ledgerregistry.ChoiceContext, error) {
		return h.w.Registry.AllocationChoiceContext(ctx, cid, move)
	})
}

// token-metadata-v1.yaml

type getRegistryInfoResponse struct {
	AdminID       string         `json:"adminId"`
	SupportedApis map[string]int `json:"supportedApis"`
}

type instrumentDTO struct {
	ID              string         `json:"id"`
	Name            string         `json:"name"`
	Symbol          string         `json:"symbol"`
	TotalSupply     string         `json:"totalSupply,omitempty"`
	TotalSupplyAsOf string         `json:"totalSupplyAsOf,omitempty"`
	Decimals        int            `json:"decimals"`
	SupportedApis   map[string]int `json:"supportedApis"`
}

type listInstrumentsResponse struct {
	Instruments   []instrumentDTO `json:"instruments"`
	NextPageToken string          `json:"nextPageToken,omitempty"`
}

// supportedApis lists the token-standard APIs this registry serves, with
// their minor versions.
func supportedApis() map[string]int {
	return map[string]int{
		"splice-api-token-metadata-v1":               1,
		"splice-api-token-holding-v1":                1,
		"splice-api-token-transfer-instruction-v1":   1,
		"splice-api-token-allocation-v1":             1,
		"splice-api-token-allocation-instruction-v1": 1,
	}
}

// getRegistryInfo answers GET /registry/metadata/v1/info.
func (h registry) getRegistryInfo(w http.ResponseWriter, r *http.Request) error {
	return web.WriteJSON(w, http.StatusOK, getRegistryInfoResponse{AdminID: string(h.l.DSO()), SupportedApis: supportedApis()})
}

// instruments returns the registry's instruments, sorted by id. The coin
// is the only one: id "Amulet" as on the real network (clients match on
// it), display name "Amulet" and symbol "CC", the mission's abbreviation.
func (h registry) instruments(r *http.Request) ([]instrumentDTO, error) {
	supply, asOf, err := h.w.Registry.TotalSupply(r.Context())
	if err != nil {
		return nil, err
	}
	return []instrumentDTO{{
		ID: ledger.InstrumentID, Name: "Amulet", Symbol: "CC", TotalSupply: supply.String(),
		TotalSupplyAsOf: ledger.FormatTime(asOf), Decimals: coin.Scale, SupportedApis: supportedApis(),
	}}, nil
}

// listInstruments answers GET /registry/metadata/v1/instruments.
func (h registry) listInstruments(w http.ResponseWriter, r *http.Request) error {
	size := 25
	if s := r.URL.Query().Get("pageSize"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			return badRequest("pageSize: must be a positive integer")
		}
		size = n
	}
	token := r.URL.Query().Get("pageToken")
	all, err := h.instruments(r)
	if err != nil {
		return err
	}
	// The page token is the id of the last instrument of the previous page.
	start := sort.Search(len(all), func(i int) bool { return all[i].ID > token })
	if token == "" {
		start = 0
	}
	resp := listInstrumentsResponse{Instruments: all[start:min(len(all), start+size)]}
	if start+size < len(all) {
		resp.NextPageToken = resp.Instruments[len(resp.Instruments)-1].ID
	}
	return web.WriteJSON(w, http.StatusOK, resp)
}

// getInstrument answers GET /registry/metadata/v1/instruments/{instrumentId}.
func (h registry) getInstrument(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("instrumentId")
	all, err := h.instruments(r)
	if err != nil {
		return err
	}
	for _, in := range all {
		if in.ID == id {
			return web.WriteJSON(w, http.StatusOK, in)
		}
	}
	return notFound(fmt.Sprintf("Instrument '%s' not found.", id))
}

// Devnet reassignment control (our own admin endpoint): lets operators and
// tests put a contract in flight between synchronizers.

type reassignmentRequest struct {
	ContractID           string `json:"contract_id"`
	TargetSynchronizerID string `json:"target_synchronizer_id"`
}

type reassignmentResponse struct {
	ContractID           string `json:"contract_id"`
	TargetSynchronizerID string `json:"target_synchronizer_id,omitempty"`
	Status               string `json:"status"`
}

func (h devnet) requireDevNet() error {
	if !h.l.DevNet() {
		return fmt.Errorf("%w: reassignment control is only available on a development network", fault.ErrDisabled)
	}
	return nil
}

// beginReassignment answers POST /v0/admin/devnet/reassignments.
func (h devnet) beginReassignment(w http.ResponseWriter, r *http.Request) error {
	if err := h.requireDevNet(); err != nil {
		return err
	}
	var req reassignmentRequest
	if err := web.DecodeJSON(r, &req); err != nil {
		return err
	}
	cid, err := coin.ParseContractID(req.ContractID)
	if err != nil {
		return err
	}
	if err := h.w.Reassign.Begin(r.Context(), cid, req.TargetSynchronizerID); err != nil {
		return err
	}
	return web.WriteJSON(w, http.StatusOK, reassignmentResponse{ContractID: string(cid), TargetSynchronizerID: req.TargetSynchronizerID, Status: "reassigning"})
}

// completeReassignment answers POST /v0/admin/devnet/reassignments/{contract_id}/complete.
func (h devnet) completeReassignment(w http.ResponseWriter, r *http.Request) error {
	if err := h.requireDevNet(); err != nil {
		return err
	}
	cid, err := coin.ParseContractID(r.PathValue("contract_id"))
	if err != nil {
		return err
	}
	if err := h.w.Reassign.Complete(r.Context(), cid); err != nil {
		return err
	}
	return web.WriteJSON(w, http.StatusOK, reassignmentResponse{ContractID: string(cid), Status: "assigned"})
}
