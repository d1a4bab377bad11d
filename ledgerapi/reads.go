package ledgerapi

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger/apiread"
	"github.com/ccwallet/ccwallet/ledger/fault"
	"github.com/ccwallet/ccwallet/ledgerapi/internal/canton"
	"github.com/ccwallet/ccwallet/ledgerapi/internal/damlid"
)

// Reads: ledger end, pruned offsets, connected synchronizers, the active
// contract set, events by contract and updates.

// reads serves the Ledger API's reads (state, events and updates): the
// Server under another name, so the routes of each group live on a type
// of their own.
type reads struct{ *Server }

func (s reads) getLedgerEnd(w http.ResponseWriter, r *http.Request, _ *canton.Caller) error {
	end, err := s.w.APIRead.LedgerEnd(r.Context())
	if err != nil {
		return err
	}
	return canton.WriteJSON(w, map[string]int64{"offset": end})
}

func (s reads) getPrunedOffsets(w http.ResponseWriter, r *http.Request, _ *canton.Caller) error {
	p, err := s.w.APIRead.PrunedOffset(r.Context())
	if err != nil {
		return err
	}
	return canton.WriteJSON(w, map[string]int64{"participantPrunedUpToInclusive": p, "allDivulgedContractsPrunedUpToInclusive": p})
}

func (s reads) getConnectedSynchronizers(w http.ResponseWriter, r *http.Request, c *canton.Caller) error {
	ps := r.URL.Query().Get("party")
	if ps == "" {
		return canton.Err(canton.CodeMissingField, "party: the party whose synchronizers to list is required")
	}
	p, err := canton.ParseParty("party", ps)
	if err != nil {
		return err
	}
	if err := c.RequireRead(p); err != nil {
		return err
	}
	type synchronizer struct {
		Alias      string `json:"synchronizerAlias"`
		ID         string `json:"synchronizerId"`
		Permission string `json:"permission"`
	}
	return canton.WriteJSON(w, map[string][]synchronizer{"connectedSynchronizers": {{
		Alias: "global", ID: s.l.SynchronizerID(), Permission: "PARTICIPANT_PERMISSION_SUBMISSION",
	}}})
}

// listLimit reads the limit query parameter of a list endpoint (0: none).
func listLimit(r *http.Request) (int, error) {
	v := r.URL.Query().Get("limit")
	if v == "" {
		return 0, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		return 0, &canton.DecodeError{Status: http.StatusBadRequest, Msg: "limit: want a non-negative whole number, not " + strconv.Quote(v)}
	}
	return int(min(n, apiread.MaxAPIPage)), nil
}

type interfaceView struct {
	InterfaceID string          `json:"interfaceId"`
	ViewStatus  viewStatus      `json:"viewStatus"`
	ViewValue   json.RawMessage `json:"viewValue,omitempty"`
}

type viewStatus struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Details []any  `json:"details"`
}

// createdEvent is CreatedEvent. Absent optional values are left out
// rather than null (the spec does not allow null).
type createdEvent struct {
	Offset           int64           `json:"offset"`
	NodeID           int             `json:"nodeId"`
	ContractID       coin.ContractID `json:"contractId"`
	TemplateID       string          `json:"templateId"`
	CreateArgument   json.RawMessage `json:"createArgument,omitempty"`
	CreatedEventBlob string          `json:"createdEventBlob"`
	InterfaceViews   []interfaceView `json:"interfaceViews"`
	WitnessParties   []coin.PartyID  `json:"witnessParties"`
	Signatories      []coin.PartyID  `json:"signatories"`
	Observers        []coin.PartyID  `json:"observers"`
	CreatedAt        string          `json:"createdAt"`
	PackageName      string          `json:"packageName"`
}

type archivedEvent struct {
	Offset                int64           `json:"offset"`
	NodeID                int             `json:"nodeId"`
	ContractID            coin.ContractID `json:"contractId"`
	TemplateID            string          `json:"templateId"`
	WitnessParties        []coin.PartyID  `json:"witnessParties"`
	PackageName           string          `json:"packageName"`
	ImplementedInterfaces []string        `json:"implementedInterfaces"`
}

func (s *Server) createdEventOf(c apiread.LedgerContract, m match, nodeID int) createdEvent {
	e := createdEvent{
		Offset: c.CreatedOffset, NodeID: nodeID, ContractID: c.ContractID, TemplateID: damlid.ByPackageID(c.TemplateID),
		InterfaceViews: []interfaceView{}, WitnessParties: m.witnesses, Signatories: c.Signatories,
		Observers: c.Observers, CreatedAt: canton.FormatTime(c.CreatedAt), PackageName: damlid.NameOf(c.TemplateID),
	}
	if e.Observers == nil {
		e.Observers = []coin.PartyID{}
	}
	if m.argument {
		e.CreateArgument = c.Payload
	}
	if m.blob {
		e.CreatedEventBlob = c.CreatedEventBlob
	}
	for _, i := range m.views {
		v := interfaceView{InterfaceID: damlid.ByPackageID(i), ViewStatus: viewStatus{Details: []any{}}}
		if val, err := s.w.APIRead.InterfaceView(c, i); err != nil {
			// Canton reports a view that fails to compute in its status.
			v.ViewStatus.Code, v.ViewStatus.Message = canton.CodeInternal.GRPC(), err.Error()
		} else {
			v.ViewValue = val
		}
		e.InterfaceViews = append(e.InterfaceViews, v)
	}
	return e
}

func archivedEventOf(c apiread.LedgerContract, m match, nodeID int) archivedEvent {
	e := archivedEvent{
		Offset: c.ArchivedOffset, NodeID: nodeID, ContractID: c.ContractID, TemplateID: damlid.ByPackageID(c.TemplateID),
		WitnessParties: m.witnesses, PackageName: damlid.NameOf(c.TemplateID), ImplementedInterfaces: []string{},
	}
	for _, i := range m.views {
		e.ImplementedInterfaces = append(e.ImplementedInterfaces, damlid.ByPackageID(i))
	}
	return e
}

// exercisedEvent is ExercisedEvent: the consuming exercise that archived
// a contract, in the ledger-effects shape, or a command's stored root
// exercise (exercises.go). The ledger keeps no exercise tree beyond the
// root, so for the other archives the argument is {}, the
// result derived from the update (apiread.ExerciseResult), the acting
// parties unknown ([]) and each exercise a leaf (see apiread.ConsumedBy;
// docs/api.md).
type exercisedEvent struct {
	Offset                int64           `json:"offset"`
	NodeID                int             `json:"nodeId"`
	ContractID            coin.ContractID `json:"contractId"`
	TemplateID            string          `json:"templateId"`
	InterfaceID           string          `json:"interfaceId,omitempty"`
	Choice                string          `json:"choice"`
	ChoiceArgument        any             `json:"choiceArgument"`
	ActingParties         []coin.PartyID  `json:"actingParties"`
	Consuming             bool            `json:"consuming"`
	WitnessParties        []coin.PartyID  `json:"witnessParties"`
	LastDescendantNodeID  int             `json:"lastDescendantNodeId"`
	ExerciseResult        any             `json:"exerciseResult"`
	PackageName           string          `json:"packageName"`
	ImplementedInterfaces []string        `json:"implementedInterfaces"`
}

func exercisedEventOf(u apiread.LedgerUpdate, c apiread.LedgerContract, m match, nodeID int) exercisedEvent {
	a := archivedEventOf(c, m, nodeID)
	choice, iface := apiread.ConsumedBy(u.Kind, c.TemplateID)
	e := exercisedEvent{
		Offset: a.Offset, NodeID: nodeID, ContractID: a.ContractID, TemplateID: a.TemplateID, Choice: choice, ChoiceArgument: struct{}{},
		ActingParties: []coin.PartyID{}, Consuming: true, WitnessParties: a.WitnessParties, LastDescendantNodeID: nodeID,
		PackageName: a.PackageName, ImplementedInterfaces: a.ImplementedInterfaces, ExerciseResult: apiread.ExerciseResult(u, c),
	}
	if iface != "" {
		e.InterfaceID = damlid.ByPackageID(iface)
	}
	return e
}

// acsRequest is GetActiveContractsRequest, of the POST form and the
// WebSocket alike.
type acsRequest struct {
	Filter         *eventFormatJSON `json:"filter"`
	Verbose        bool             `json:"verbose"`
	ActiveAtOffset *int64           `json:"activeAtOffset"`
	EventFormat    *eventFormatJSON `json:"eventFormat"`
}

// parse checks the request for c: which contracts, at which offset.
func (q *acsRequest) parse(c *canton.Caller) (*eventFormat, int64, error) {
	ef, err := eventFormatOf(q.Filter, q.EventFormat, q.Verbose, c)
	if err != nil {
		return nil, 0, err
	}
	if q.ActiveAtOffset == nil {
		return nil, 0, canton.Err(canton.CodeMissingField, "activeAtOffset: the offset to read the active contracts at is required (GET /v2/state/ledger-end gives the latest)")
	}
	return ef, *q.ActiveAtOffset, nil
}

// acsEntry is JsGetActiveContractsResponse.
type acsEntry struct {
	WorkflowID    string                    `json:"workflowId"`
	ContractEntry map[string]activeContract `json:"contractEntry"`
}

type activeContract struct {
	CreatedEvent        createdEvent `json:"createdEvent"`
	SynchronizerID      string       `json:"synchronizerId"`
	ReassignmentCounter int64        `json:"reassignmentCounter"`
}

// acsEntryOf renders ct as ef sees it; false when ef does not.
func (s *Server) acsEntryOf(ct apiread.LedgerContract, ef *eventFormat) (acsEntry, bool) {
	m, ok := ef.match(ct)
	if !ok {
		return acsEntry{}, false
	}
	return acsEntry{ContractEntry: map[string]activeContract{"JsActiveContract": {
		CreatedEvent: s.createdEventOf(ct, m, 0), SynchronizerID: ct.SynchronizerID,
	}}}, true
}

// activeContracts is POST /v2/state/active-contracts.
func (s reads) activeContracts(w http.ResponseWriter, r *http.Request, c *canton.Caller) error {
	limit, err := listLimit(r)
	if err != nil {
		return err
	}
	var req acsRequest
	if err := canton.Decode(r, &req); err != nil {
		return err
	}
	ef, at, err := req.parse(c)
	if err != nil {
		return err
	}
	cs, err := s.w.APIRead.ActiveContracts(r.Context(), ef.ledgerFilter(), at, limit)
	if err != nil {
		return err
	}
	out := []acsEntry{}
	for _, ct := range cs {
		if e, ok := s.acsEntryOf(ct, ef); ok {
			out = append(out, e)
		}
	}
	return canton.WriteJSON(w, out)
}

// eventFormatOf takes the legacy filter (with verbose) or the event
// format, exactly one of them.
func eventFormatOf(filter, format *eventFormatJSON, verbose bool, c *canton.Caller) (*eventFormat, error) {
	switch {
	case filter != nil && format != nil:
		return nil, canton.InvalidArgument("give either filter (with verbose) or eventFormat, not both")
	case format != nil && verbose:
		return nil, canton.InvalidArgument("verbose goes with filter; with eventFormat, set eventFormat.verbose")
	case format != nil:
		return parseEventFormat("eventFormat", format, c)
	}
	return parseEventFormat("filter", filter, c)
}

// requestingFormat is the legacy requestingParties: every template of
// each party, which the caller must be able to read as.
func requestingFormat(parties []string, instead string, c *canton.Caller) (*eventFormat, error) {
	if len(parties) == 0 || len(parties) > maxFilterParties {
		return nil, canton.InvalidArgument("requestingParties: give 1 to %d parties (or a %s)", maxFilterParties, instead)
	}
	ps := make([]coin.PartyID, len(parties))
	for i, s := range parties {
		var err error
		if ps[i], err = canton.ParseParty("requestingParties", s); err != nil {
			return nil, err
		}
		if err := c.RequireRead(ps[i]); err != nil {
			return nil, err
		}
	}
	return wildcardFormat(ps), nil
}

// eventsByContractID is POST /v2/events/events-by-contract-id.
func (s reads) eventsByContractID(w http.ResponseWriter, r *http.Request, c *canton.Caller) error {
	var req struct {
		ContractID        string           `json:"contractId"`
		RequestingParties []string         `json:"requestingParties"`
		EventFormat       *eventFormatJSON `json:"eventFormat"`
	}
	if err := canton.Decode(r, &req); err != nil {
		return err
	}
	cid, err := coin.ParseContractID(req.ContractID)
	if err != nil {
		return canton.InvalidArgument("contractId: %v", err)
	}
	var ef *eventFormat
	switch {
	case req.EventFormat != nil && len(req.RequestingParties) > 0:
		return canton.InvalidArgument("give either requestingParties or eventFormat, not both")
	case req.EventFormat != nil:
		if ef, err = parseEventFormat("eventFormat", req.EventFormat, c); err != nil {
			return err
		}
	default:
		if ef, err = requestingFormat(req.RequestingParties, "eventFormat", c); err != nil {
			return err
		}
	}
	notFound := canton.Err(canton.CodeEventsNotFound, "contract events not found, or not visible to the requesting parties: %s", cid)
	ct, err := s.w.APIRead.LedgerContractByID(r.Context(), cid)
	if errors.Is(err, fault.ErrNotFound) {
		return notFound
	} else if err != nil {
		return err
	}
	m, ok := ef.match(ct)
	if !ok {
		return notFound
	}
	type created struct {
		CreatedEvent   createdEvent `json:"createdEvent"`
		SynchronizerID string       `json:"synchronizerId"`
	}
	type archived struct {
		ArchivedEvent  archivedEvent `json:"archivedEvent"`
		SynchronizerID string        `json:"synchronizerId"`
	}
	out := struct {
		Created  *created  `json:"created,omitempty"`
		Archived *archived `json:"archived,omitempty"`
	}{Created: &created{CreatedEvent: s.createdEventOf(ct, m, 0), SynchronizerID: ct.SynchronizerID}}
	if ct.ArchivedOffset != 0 {
		out.Archived = &archived{ArchivedEvent: archivedEventOf(ct, m, 0), SynchronizerID: ct.SynchronizerID}
	}
	return canton.WriteJSON(w, out)
}

// jsTransaction is JsTransaction (flat, ACS delta shape).
type jsTransaction struct {
	UpdateID       string           `json:"updateId"`
	CommandID      string           `json:"commandId"`
	WorkflowID     string           `json:"workflowId"`
	EffectiveAt    string           `json:"effectiveAt"`
	Events         []map[string]any `json:"events"`
	Offset         int64            `json:"offset"`
	SynchronizerID string           `json:"synchronizerId"`
	RecordTime     string           `json:"recordTime"`
}

// transactionOf renders an update through ef; false when ef sees none of
// its events.
func (s *Server) transactionOf(u apiread.LedgerUpdate, ef *eventFormat) (jsTransaction, bool) {
	tx := jsTransaction{
		UpdateID: u.UpdateID, EffectiveAt: canton.FormatTime(u.RecordTime), Events: []map[string]any{}, Offset: u.Offset,
		SynchronizerID: s.l.SynchronizerID(), RecordTime: canton.FormatTime(u.RecordTime),
	}
	// The command's root exercise, where stored and seen, is node 0.
	var witnesses []coin.PartyID
	rootEx := u.Exercise
	if ef.ledgerEffects && rootEx != nil {
		if rootEx, witnesses = visibleExercise(u, rootEx, ef); len(witnesses) > 0 {
			tx.Events = append(tx.Events, nil)
		}
	}
	root := len(witnesses) > 0
	for _, e := range u.Events {
		m, ok := ef.match(e.Contract)
		if !ok && root && e.Descendant {
			// Seen under the root exercise its witnesses acted in.
			m, ok = ef.matchAs(e.Contract, witnesses)
		}
		if !ok || (e.Descendant && !root) {
			continue
		}
		node := len(tx.Events)
		if root && e.Archived && rootEx.Consuming && e.Contract.ContractID == rootEx.ContractID {
			continue // the root exercise archived it
		}
		if e.Archived && ef.ledgerEffects {
			tx.Events = append(tx.Events, map[string]any{"ExercisedEvent": exercisedEventOf(u, e.Contract, m, node)})
		} else if e.Archived {
			tx.Events = append(tx.Events, map[string]any{"ArchivedEvent": archivedEventOf(e.Contract, m, node)})
		} else {
			ce := s.createdEventOf(e.Contract, m, node)
			ce.Offset = u.Offset
			tx.Events = append(tx.Events, map[string]any{"CreatedEvent": ce})
		}
	}
	if root {
		tx.Events[0] = map[string]any{"ExercisedEvent": rootExercisedEvent(u, rootEx, witnesses, len(tx.Events)-1)}
	}
	return tx, len(tx.Events) > 0
}

// transactionFormatJSON is TransactionFormat.
type transactionFormatJSON struct {
	EventFormat      *eventFormatJSON `json:"eventFormat"`
	TransactionShape string           `json:"transactionShape"`
}

// updateFormatJSON is UpdateFormat: only transactions are served (this
// ledger has no reassignments or topology events to show).
type updateFormatJSON struct {
	IncludeTransactions   *transactionFormatJSON `json:"includeTransactions"`
	IncludeReassignments  *eventFormatJSON       `json:"includeReassignments"`
	IncludeTopologyEvents json.RawMessage        `json:"includeTopologyEvents"`
}

// transactionFormat checks an updateFormat's transactions part.
func transactionFormat(field string, tf *transactionFormatJSON, c *canton.Caller) (*eventFormat, error) {
	if tf == nil {
		return nil, canton.InvalidArgument("%s.includeTransactions: only transactions are served here; set it", field)
	}
	var effects bool
	switch tf.TransactionShape {
	case "TRANSACTION_SHAPE_ACS_DELTA":
	case "TRANSACTION_SHAPE_LEDGER_EFFECTS":
		effects = true
	default:
		return nil, canton.InvalidArgument("%s.includeTransactions.transactionShape: want TRANSACTION_SHAPE_ACS_DELTA or TRANSACTION_SHAPE_LEDGER_EFFECTS, not %q", field, tf.TransactionShape)
	}
	ef, err := parseEventFormat(field+".includeTransactions.eventFormat", tf.EventFormat, c)
	if ef != nil {
		ef.ledgerEffects = effects
	}
	return ef, err
}

// updateFlats is POST /v2/updates/flats: the transactions after
// beginExclusive up to endInclusive (or the ledger end), at most limit,
// then an OffsetCheckpoint at the offset read up to, from where the next
// request goes on.
func (s reads) updateFlats(w http.ResponseWriter, r *http.Request, c *canton.Caller) error {
	return s.readUpdates(w, r, c, false)
}

// updateTrees is POST /v2/updates/trees (legacy): updateFlats in the
// ledger-effects shape, each transaction as a tree.
func (s reads) updateTrees(w http.ResponseWriter, r *http.Request, c *canton.Caller) error {
	return s.readUpdates(w, r, c, true)
}

// updatesRequest is GetUpdatesRequest, of the POST forms and the
// WebSockets alike.
type updatesRequest struct {
	BeginExclusive *int64            `json:"beginExclusive"`
	EndInclusive   *int64            `json:"endInclusive"`
	Filter         *eventFormatJSON  `json:"filter"`
	Verbose        bool              `json:"verbose"`
	UpdateFormat   *updateFormatJSON `json:"updateFormat"`
}

// parse checks the request for c (trees: the ledger-effects shape
// always): which events, after which offset, up to which (0: no end).
func (q *updatesRequest) parse(c *canton.Caller, trees bool) (ef *eventFormat, begin, end int64, err error) {
	switch {
	case q.Filter != nil && q.UpdateFormat != nil:
		return nil, 0, 0, canton.InvalidArgument("give either filter (with verbose) or updateFormat, not both")
	case q.UpdateFormat != nil && q.Verbose:
		return nil, 0, 0, canton.InvalidArgument("verbose goes with filter; with updateFormat, set the event format's verbose")
	case q.UpdateFormat != nil:
		ef, err = transactionFormat("updateFormat", q.UpdateFormat.IncludeTransactions, c)
	case q.Filter != nil:
		ef, err = parseEventFormat("filter", q.Filter, c)
	default:
		return nil, 0, 0, canton.InvalidArgument("give filter (with verbose) or updateFormat")
	}
	if err != nil {
		return nil, 0, 0, err
	}
	if trees {
		ef.ledgerEffects = true
	}
	if q.BeginExclusive == nil {
		return nil, 0, 0, canton.Err(canton.CodeMissingField, "beginExclusive: the offset to read after is required (0 is the ledger's beginning)")
	}
	if q.EndInclusive != nil {
		if end = *q.EndInclusive; end <= 0 {
			return nil, 0, 0, canton.InvalidArgument("endInclusive: must be a positive offset, not %d", end)
		}
	}
	return ef, *q.BeginExclusive, end, nil
}

// updateMessages renders the updates ef sees, each a JsGetUpdatesResponse
// (or, for trees, JsGetUpdateTreesResponse).
func (s *Server) updateMessages(ups []apiread.LedgerUpdate, ef *eventFormat, trees bool) []map[string]any {
	out := []map[string]any{}
	for _, u := range ups {
		if tx, ok := s.transactionOf(u, ef); ok && trees {
			out = append(out, map[string]any{"update": map[string]any{"TransactionTree": map[string]any{"value": treeOf(tx)}}})
		} else if ok {
			out = append(out, map[string]any{"update": map[string]any{"Transaction": map[string]any{"value": tx}}})
		}
	}
	return out
}

// offsetCheckpoint is OffsetCheckpoint's value at offset.
func (s *Server) offsetCheckpoint(offset int64) map[string]any {
	return map[string]any{"value": map[string]any{"offset": offset, "synchronizerTimes": []syncTime{{s.l.SynchronizerID(), canton.FormatTime(s.l.Now())}}}}
}

// readUpdates answers updateFlats, or updateTrees when trees.
func (s reads) readUpdates(w http.ResponseWriter, r *http.Request, c *canton.Caller, trees bool) error {
	limit, err := listLimit(r)
	if err != nil {
		return err
	}
	var req updatesRequest
	if err := canton.Decode(r, &req); err != nil {
		return err
	}
	ef, begin, end, err := req.parse(c, trees)
	if err != nil {
		return err
	}
	if limit == 0 {
		limit = apiread.MaxAPIPage
	}
	ups, scanned, err := s.w.APIRead.Updates(r.Context(), ef.ledgerFilter(), begin, end, limit)
	if err != nil {
		return err
	}
	out := s.updateMessages(ups, ef, trees)
	if len(out) < limit && scanned > begin {
		// A resume point past updates this filter does not see.
		out = append(out, map[string]any{"update": map[string]any{"OffsetCheckpoint": s.offsetCheckpoint(scanned)}})
	}
	return canton.WriteJSON(w, out)
}

// lookupRequest is GetTransactionByIdRequest / ByOffsetRequest.
type lookupRequest struct {
	UpdateID          string                 `json:"updateId"`
	Offset            *int64                 `json:"offset"`
	RequestingParties []string               `json:"requestingParties"`
	TransactionFormat *transactionFormatJSON `json:"transactionFormat"`
	UpdateFormat      *updateFormatJSON      `json:"updateFormat"`
}

func (s reads) transactionByID(w http.ResponseWriter, r *http.Request, c *canton.Caller) error {
	return s.lookupTransaction(w, r, c, true, false)
}

func (s reads) transactionByOffset(w http.ResponseWriter, r *http.Request, c *canton.Caller) error {
	return s.lookupTransaction(w, r, c, false, false)
}

func (s reads) updateByID(w http.ResponseWriter, r *http.Request, c *canton.Caller) error {
	return s.lookupTransaction(w, r, c, true, true)
}

func (s reads) updateByOffset(w http.ResponseWriter, r *http.Request, c *canton.Caller) error {
	return s.lookupTransaction(w, r, c, false, true)
}

// lookupTransaction answers the transaction (by id or offset) as
// {"transaction": tx}, or as {"update": {"Transaction": ...}} for the
// update-by-* endpoints, which take an updateFormat.
func (s reads) lookupTransaction(w http.ResponseWriter, r *http.Request, c *canton.Caller, byID, asUpdate bool) error {
	var req lookupRequest
	if err := canton.Decode(r, &req); err != nil {
		return err
	}
	var ef *eventFormat
	var err error
	switch {
	case asUpdate && req.UpdateFormat == nil:
		return canton.Err(canton.CodeMissingField, "updateFormat: say which events to show")
	case asUpdate:
		ef, err = transactionFormat("updateFormat", req.UpdateFormat.IncludeTransactions, c)
	case req.TransactionFormat != nil && len(req.RequestingParties) > 0:
		return canton.InvalidArgument("give either requestingParties or transactionFormat, not both")
	case req.TransactionFormat != nil:
		ef, err = transactionFormat("transactionFormat", req.TransactionFormat, c)
	default:
		ef, err = requestingFormat(req.RequestingParties, "transactionFormat", c)
	}
	if err != nil {
		return err
	}
	tx, err := s.findTransaction(r, ef, byID, req.UpdateID, req.Offset)
	if err != nil {
		return err
	}
	if asUpdate {
		return canton.WriteJSON(w, map[string]any{"update": map[string]any{"Transaction": map[string]any{"value": tx}}})
	}
	return canton.WriteJSON(w, map[string]jsTransaction{"transaction": tx})
}

// findTransaction is the transaction with updateID (byID) or at offset,
// as ef sees it; UPDATE_NOT_FOUND when it sees none of it.
func (s reads) findTransaction(r *http.Request, ef *eventFormat, byID bool, updateID string, offsetp *int64) (jsTransaction, error) {
	var offset int64
	var err error
	what := ""
	if byID {
		what = "update " + updateID
		if updateID == "" {
			return jsTransaction{}, canton.Err(canton.CodeMissingField, "updateId: the id of the transaction is required")
		}
		offset, err = s.w.APIRead.UpdateOffset(r.Context(), updateID)
		if errors.Is(err, fault.ErrNotFound) {
			return jsTransaction{}, canton.Err(canton.CodeUpdateNotFound, "%s not found, or not visible to the requesting parties", what)
		} else if err != nil {
			return jsTransaction{}, err
		}
	} else {
		if offsetp == nil || *offsetp <= 0 {
			return jsTransaction{}, canton.InvalidArgument("offset: give the positive offset of the transaction")
		}
		offset, what = *offsetp, "update at offset "+strconv.FormatInt(*offsetp, 10)
	}
	ups, _, err := s.w.APIRead.Updates(r.Context(), ef.ledgerFilter(), offset-1, offset, 1)
	if err != nil {
		return jsTransaction{}, err
	}
	for _, u := range ups {
		if tx, ok := s.transactionOf(u, ef); ok && u.Offset == offset {
			return tx, nil
		}
	}
	return jsTransaction{}, canton.Err(canton.CodeUpdateNotFound, "%s not found, or not visible to the requesting parties", what)
}

// transactionTreeByID is GET /v2/updates/transaction-tree-by-id/{id}.
func (s reads) transactionTreeByID(w http.ResponseWriter, r *http.Request, c *canton.Caller) error {
	return s.lookupTree(w, r, c, true)
}

// transactionTreeByOffset is GET
// /v2/updates/transaction-tree-by-offset/{offset}.
func (s reads) transactionTreeByOffset(w http.ResponseWriter, r *http.Request, c *canton.Caller) error {
	return s.lookupTree(w, r, c, false)
}

// lookupTree answers the transaction tree (legacy) the query's parties
// see of the update in the path.
func (s reads) lookupTree(w http.ResponseWriter, r *http.Request, c *canton.Caller, byID bool) error {
	ef, err := requestingFormat(r.URL.Query()["parties"], "parties query parameter", c)
	if err != nil {
		return err
	}
	ef.ledgerEffects = true
	var offset *int64
	if !byID {
		o, err := strconv.ParseInt(r.PathValue("offset"), 10, 64)
		if err != nil {
			return &canton.DecodeError{Status: http.StatusBadRequest, Msg: "offset: want a whole number, not " + strconv.Quote(r.PathValue("offset"))}
		}
		offset = &o
	}
	tx, err := s.findTransaction(r, ef, byID, r.PathValue("updateId"), offset)
	if err != nil {
		return err
	}
	return canton.WriteJSON(w, map[string]jsTransactionTree{"transaction": treeOf(tx)})
}

// jsTransactionTree is JsTransactionTree: the events by node id.
type jsTransactionTree struct {
	UpdateID       string         `json:"updateId"`
	CommandID      string         `json:"commandId"`
	WorkflowID     string         `json:"workflowId"`
	EffectiveAt    string         `json:"effectiveAt"`
	Offset         int64          `json:"offset"`
	EventsByID     map[string]any `json:"eventsById"`
	SynchronizerID string         `json:"synchronizerId"`
	RecordTime     string         `json:"recordTime"`
}

// treeOf is tx (in the ledger-effects shape) as a tree: each event under
// its node id, as a CreatedTreeEvent or ExercisedTreeEvent.
func treeOf(tx jsTransaction) jsTransactionTree {
	t := jsTransactionTree{UpdateID: tx.UpdateID, CommandID: tx.CommandID, WorkflowID: tx.WorkflowID, EffectiveAt: tx.EffectiveAt,
		Offset: tx.Offset, EventsByID: map[string]any{}, SynchronizerID: tx.SynchronizerID, RecordTime: tx.RecordTime}
	for i, ev := range tx.Events {
		for kind, v := range ev {
			t.EventsByID[strconv.Itoa(i)] = map[string]any{strings.TrimSuffix(kind, "Event") + "TreeEvent": map[string]any{"value": v}}
		}
	}
	return t
}
