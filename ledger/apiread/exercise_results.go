package apiread

import (
	"encoding/json"
	"slices"
	"strconv"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/internal/jsonv1"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/allocationdata"
	"github.com/ccwallet/ccwallet/ledger/commands"
	"github.com/ccwallet/ccwallet/ledger/delegations"
)

// ExerciseFacts is the core's Config.ExerciseFacts: it records on e
// what the change that ran the command wrote and the shaping below reads
// (commands.Facts), which the core stores with the command's completion
// in place of the result. Of the contracts created, only a
// TransferPreapproval's payload is read (TransferPreapproval_Renew's
// result).
func ExerciseFacts(w ledger.Written, e *commands.Exercise) {
	f := &commands.Facts{}
	if w.Round != nil {
		f.Round = &commands.RoundFact{Number: w.Round.Number, Price: w.Round.Price}
	}
	for _, c := range w.Created {
		cf := commands.CreatedFact{ContractID: c.ContractID, TemplateID: c.TemplateID}
		if c.TemplateID == ledger.TemplateTransferPreapproval {
			cf.Payload = c.Payload
		}
		f.Created = append(f.Created, cf)
	}
	if len(w.Holdings) > 0 {
		f.Holdings = make([]commands.HoldingFact, len(w.Holdings))
		for i, h := range w.Holdings {
			f.Holdings[i] = commands.HoldingFact{ContractID: h.ContractID, Owner: h.Owner, Amount: h.Amount, LockHolder: h.LockHolder}
		}
	}
	if len(w.History) > 0 {
		f.History = make([]commands.HistoryFact, len(w.History))
		for i, h := range w.History {
			// Details that do not decode read as no fees, as they did when
			// the result was shaped as the change was written.
			var d ledger.HistoryDetails
			if jsonv1.Unmarshal([]byte(h.Details), &d) != nil {
				d = ledger.HistoryDetails{}
			}
			f.History[i] = commands.HistoryFact{Party: h.Party, Counterparty: coin.PartyID(h.Counterparty), Fees: d.Fees, HoldingFees: d.HoldingFees}
		}
	}
	e.Facts = f
}

// ShapeExercise sets e's Daml result (exerciseResultOf) and what the
// receiver of a one-step transfer witnesses (receiverView) from the
// facts of what the command's change wrote (e.Facts, ExerciseFacts),
// and drops the facts; e without facts (none recorded, or stored shaped)
// is left as it is.
func ShapeExercise(e *commands.Exercise) {
	if e.Facts == nil {
		return
	}
	t := &written{Facts: e.Facts}
	e.Facts = nil
	if e.Choice == "TransferFactory_Transfer" {
		// One decode serves the result and the receiver's view; an
		// argument that does not decode whole is read by each as before.
		var arg factoryTransferArg
		if jsonv1.Unmarshal(e.ChoiceArgument, &arg) == nil {
			t.factoryArg = &arg
		}
	}
	b, err := json.Marshal(t.exerciseResultOf(e))
	if err != nil {
		b = []byte("{}")
	}
	e.ExerciseResult = b
	t.receiverView(e)
}

// written is what one change wrote (commands.Facts), which the results
// below are built from.
type written struct {
	*commands.Facts
	// factoryArg is a TransferFactory_Transfer's argument, decoded once
	// (nil: decode it where it is read).
	factoryArg *factoryTransferArg
}

// factoryTransferArg is what the results read of TransferFactory_Transfer's
// argument.
type factoryTransferArg struct {
	Transfer struct {
		Sender   coin.PartyID `json:"sender"`
		Receiver coin.PartyID `json:"receiver"`
		Amount   coin.Amount  `json:"amount"`
		Inputs   []string     `json:"inputHoldingCids"`
		Meta     struct {
			Values map[string]string `json:"values"`
		} `json:"meta"`
	} `json:"transfer"`
	ExtraArgs struct {
		Context struct {
			Values map[string]struct {
				Value any `json:"value"`
			} `json:"values"`
		} `json:"context"`
	} `json:"extraArgs"`
}

// The results' records are structs with their fields in the order
// json.Marshal puts a map's keys (sorted), so they encode as the maps
// they replace did, without the maps.

// instructionResult is the token standard's TransferInstructionResult.
type instructionResult struct {
	Meta             map[string]any    `json:"meta"`
	Output           any               `json:"output"`
	SenderChangeCids []coin.ContractID `json:"senderChangeCids"`
}

type receiverHoldings struct {
	ReceiverHoldingCids []coin.ContractID `json:"receiverHoldingCids"`
}

// completed is TransferInstructionResult_Completed with the receiver's
// holdings.
func completed(cids []coin.ContractID) variant {
	return variant{Tag: "TransferInstructionResult_Completed", Value: receiverHoldings{cids}}
}

// transferResultJSON is Splice's TransferResult.
type transferResultJSON struct {
	CreatedAmulets     []variant         `json:"createdAmulets"`
	Meta               any               `json:"meta"`
	Round              map[string]string `json:"round"`
	SenderChangeAmulet any               `json:"senderChangeAmulet"`
	Summary            transferSummary   `json:"summary"`
}

// transferSummary is Splice's TransferSummary.
type transferSummary struct {
	AmuletPrice                string   `json:"amuletPrice"`
	BalanceChanges             []any    `json:"balanceChanges"`
	HoldingFees                string   `json:"holdingFees"`
	InputAmuletAmount          string   `json:"inputAmuletAmount"`
	InputAppRewardAmount       string   `json:"inputAppRewardAmount"`
	InputSvRewardAmount        string   `json:"inputSvRewardAmount"`
	InputValidatorFaucetAmount any      `json:"inputValidatorFaucetAmount"`
	InputValidatorRewardAmount string   `json:"inputValidatorRewardAmount"`
	OutputFees                 []string `json:"outputFees"`
	SenderChangeAmount         string   `json:"senderChangeAmount"`
	SenderChangeFee            string   `json:"senderChangeFee"`
}

// preapprovalSendResultJSON is TransferPreapproval_SendResult.
type preapprovalSendResultJSON struct {
	Meta   map[string]any     `json:"meta"`
	Result transferResultJSON `json:"result"`
}

// preapprovalSendArg is TransferPreapproval_Send's argument.
type preapprovalSendArg struct {
	Amount  string `json:"amount"`
	Context struct {
		AmuletRules string `json:"amuletRules"`
		Context     struct {
			FeaturedAppRight    any    `json:"featuredAppRight"`
			IssuingMiningRounds []any  `json:"issuingMiningRounds"`
			OpenMiningRound     string `json:"openMiningRound"`
			ValidatorRights     []any  `json:"validatorRights"`
		} `json:"context"`
	} `json:"context"`
	Description *string      `json:"description"`
	Inputs      []variant    `json:"inputs"`
	Sender      coin.PartyID `json:"sender"`
}

// exerciseResultOf is e's Daml result in the JSON API's encoding, for the
// token standard's choices built from the holdings and instructions t
// created (TransferInstructionResult with its output variant); Unit ({})
// for the choices whose result is not derived.
func (t *written) exerciseResultOf(e *commands.Exercise) any {
	failed := map[string]any{"tag": "TransferInstructionResult_Failed", "value": map[string]any{}}
	var arg struct {
		Transfer struct {
			Sender   coin.PartyID `json:"sender"`
			Receiver coin.PartyID `json:"receiver"`
		} `json:"transfer"`
	}
	switch e.Choice {
	case "TransferFactory_Transfer":
		if t.factoryArg != nil {
			arg.Transfer.Sender, arg.Transfer.Receiver = t.factoryArg.Transfer.Sender, t.factoryArg.Transfer.Receiver
		} else {
			_ = jsonv1.Unmarshal(e.ChoiceArgument, &arg)
		}
		sender, receiver := arg.Transfer.Sender, arg.Transfer.Receiver
		out := completed(t.createdHoldings(receiver))
		for _, c := range t.Created {
			if c.TemplateID == ledger.TemplateTransferInstruction {
				out = variant{Tag: "TransferInstructionResult_Pending",
					Value: struct {
						TransferInstructionCid coin.ContractID `json:"transferInstructionCid"`
					}{c.ContractID}}
			}
		}
		change := []coin.ContractID{}
		if sender != receiver {
			change = t.createdHoldings(sender)
		}
		return instructionResult{Output: out, SenderChangeCids: change, Meta: t.burnedMeta(sender)}
	case "TransferInstruction_Accept", "TransferInstruction_Reject", "TransferInstruction_Withdraw":
		// The receiver accepts or rejects, the sender withdraws.
		var actor coin.PartyID
		if len(e.ActingParties) > 0 {
			actor = e.ActingParties[0]
		}
		switch e.Choice {
		case "TransferInstruction_Accept":
			return instructionResult{Output: completed(t.createdHoldings(actor)),
				SenderChangeCids: t.holdingsNotOf(actor), Meta: t.burnedMeta(t.historyPartyBesides(actor))}
		case "TransferInstruction_Reject":
			return instructionResult{Output: failed, SenderChangeCids: t.holdingsNotOf(actor), Meta: t.burnedMeta(t.historyPartyBesides(actor))}
		default:
			return instructionResult{Output: failed, SenderChangeCids: t.createdHoldings(actor), Meta: t.burnedMeta(actor)}
		}
	}
	if r, ok := t.coinExerciseResult(e); ok {
		return r
	}
	return map[string]any{}
}

// createdHoldings lists the unlocked holdings of owner t created.
func (t *written) createdHoldings(owner coin.PartyID) []coin.ContractID {
	out := []coin.ContractID{}
	for _, h := range t.Holdings {
		if h.Owner == owner && h.LockHolder == "" {
			out = append(out, h.ContractID)
		}
	}
	return out
}

// holdingsNotOf lists the unlocked holdings t created for others than
// party.
func (t *written) holdingsNotOf(party coin.PartyID) []coin.ContractID {
	out := []coin.ContractID{}
	for _, h := range t.Holdings {
		if h.Owner != party && h.LockHolder == "" {
			out = append(out, h.ContractID)
		}
	}
	return out
}

// The Daml results of the coin's own choices exercised through the
// Ledger API (besides the token standard's transfer choices,
// exerciseResultOf), in the JSON API's encoding, built from what the
// change created and recorded. Their shapes are Splice's result records:
// AmuletRules_DevNet_TapResult, AmuletRules_DevNet_FeatureAppResult,
// AmuletRules_BuyMemberTrafficResult, TransferPreapproval_SendResult,
// _RenewResult and _CancelResult (Splice.AmuletRules),
// AllocationInstructionResult and Allocation_*Result (the token
// standard's allocation APIs), MergeDelegation_MergeResult,
// BatchMergeUtility_BatchMergeResult and
// MergeDelegationProposal_AcceptResult (Splice.Util.Token.Wallet).
//
// What this ledger does not model is left out the way Daml would show an
// empty value: the split-off amulet a burn archives at once is not among
// a burn's createdAmulets, and a summary's balanceChanges are empty.

// Splice's holding-transaction metadata keys (Splice.Amulet.TokenApiUtils),
// which the wallet SDK's transaction parser reads.
const (
	MetaTxKind = "splice.lfdecentralizedtrust.org/tx-kind"
	MetaSender = "splice.lfdecentralizedtrust.org/sender"
	MetaBurned = "splice.lfdecentralizedtrust.org/burned"
)

// coinExerciseResult is e's result for the coin's own choices; false for
// a choice it does not know.
func (t *written) coinExerciseResult(e *commands.Exercise) (any, bool) {
	actor := coin.PartyID("")
	if len(e.ActingParties) > 0 {
		actor = e.ActingParties[0]
	}
	switch e.Choice {
	case "AmuletRules_DevNet_Tap":
		var arg struct {
			Receiver coin.PartyID `json:"receiver"`
		}
		_ = jsonv1.Unmarshal(e.ChoiceArgument, &arg)
		cid := any(nil)
		if hs := t.createdHoldings(arg.Receiver); len(hs) > 0 {
			cid = hs[0]
		}
		return map[string]any{
			"amuletSum": map[string]any{"amulet": cid, "amuletPrice": t.Round.Price.String(), "round": t.roundJSON()},
			"meta":      metaJSON(map[string]string{MetaTxKind: "mint", ledger.MetaReason: "tapped faucet"}),
		}, true
	case "AmuletRules_DevNet_FeatureApp":
		return map[string]any{"featuredAppRightCid": t.createdOf(ledger.TemplateFeaturedAppRight)}, true
	case "AmuletRules_BuyMemberTraffic":
		paid, tr := t.burnResult(actor)
		return map[string]any{
			"round": t.roundJSON(), "summary": tr.Summary, "amuletPaid": paid.String(),
			"purchasedTraffic": t.createdOf(ledger.TemplateMemberTraffic), "senderChangeAmulet": tr.SenderChangeAmulet,
			"meta": metaJSON(map[string]string{MetaTxKind: "burn", ledger.MetaReason: "traffic purchase", MetaBurned: paid.String()}),
		}, true
	case "TransferPreapproval_Renew":
		paid, tr := t.burnResult(actor)
		var p struct {
			Receiver coin.PartyID `json:"receiver"`
			Provider coin.PartyID `json:"provider"`
		}
		cid := t.createdOf(ledger.TemplateTransferPreapproval)
		for _, c := range t.Created {
			if c.ContractID == cid {
				_ = jsonv1.Unmarshal([]byte(c.Payload), &p)
			}
		}
		return map[string]any{
			"transferPreapprovalCid": cid, "transferResult": tr, "receiver": p.Receiver, "provider": p.Provider,
			"amuletPaid": paid.String(),
			"meta":       metaJSON(map[string]string{MetaTxKind: "burn", ledger.MetaReason: "renew TransferPreapproval", MetaBurned: paid.String()}),
		}, true
	case "TransferPreapproval_Cancel":
		return map[string]any{}, true // TransferPreapproval_CancelResult has no fields
	case "TransferPreapproval_Send":
		var arg struct {
			Sender      coin.PartyID `json:"sender"`
			Description *string      `json:"description"`
		}
		_ = jsonv1.Unmarshal(e.ChoiceArgument, &arg)
		return t.preapprovalSendResult(arg.Sender, arg.Description), true
	case "AllocationFactory_Allocate":
		out := map[string]any{"tag": "AllocationInstructionResult_Failed", "value": map[string]any{}}
		if cid := t.createdOf(allocationdata.TemplateAmuletAllocation); cid != "" {
			out = map[string]any{"tag": "AllocationInstructionResult_Completed", "value": map[string]any{"allocationCid": cid}}
		}
		return map[string]any{"output": out, "senderChangeCids": t.createdHoldings(actor), "meta": metaJSON(nil)}, true
	case "Allocation_ExecuteTransfer", "Allocation_Withdraw", "Allocation_Cancel":
		// The allocation's transfer leg: its sender's history row names
		// the receiver.
		var leg struct{ Sender, Receiver coin.PartyID }
		if len(t.History) > 0 {
			leg.Sender, leg.Receiver = t.History[0].Party, coin.PartyID(t.History[0].Counterparty)
		}
		r := map[string]any{"senderHoldingCids": t.createdHoldings(leg.Sender), "meta": metaJSON(nil)}
		if e.Choice == "Allocation_ExecuteTransfer" {
			r["receiverHoldingCids"] = t.createdHoldings(leg.Receiver)
		}
		return r, true
	case "MergeDelegationProposal_Accept":
		return map[string]any{"mergeDelegationCid": t.createdOf(delegations.TemplateMergeDelegation)}, true
	case "MergeDelegation_Merge":
		var arg mergeCallArg
		_ = jsonv1.Unmarshal(e.ChoiceArgument, &arg)
		return t.mergeResult(arg.owner()), true
	case "BatchMergeUtility_BatchMerge":
		var arg struct {
			MergeCalls []struct {
				ChoiceArg mergeCallArg `json:"choiceArg"`
			} `json:"mergeCalls"`
		}
		_ = jsonv1.Unmarshal(e.ChoiceArgument, &arg)
		results := []any{}
		for _, c := range arg.MergeCalls {
			results = append(results, t.mergeResult(c.ChoiceArg.owner()))
		}
		// No extra transfers are run, so the operator has no change.
		return map[string]any{"results": results, "operatorChangeMap": []any{}}, true
	}
	return nil, false
}

// mergeCallArg is the part of MergeDelegation_Merge's argument a result
// needs: the self-transfer's sender, the holdings' owner.
type mergeCallArg struct {
	OptMergeTransfer *struct {
		ChoiceArg struct {
			Transfer struct {
				Sender coin.PartyID `json:"sender"`
			} `json:"transfer"`
		} `json:"choiceArg"`
	} `json:"optMergeTransfer"`
}

func (a mergeCallArg) owner() coin.PartyID {
	if a.OptMergeTransfer == nil {
		return ""
	}
	return a.OptMergeTransfer.ChoiceArg.Transfer.Sender
}

// mergeResult is MergeDelegation_MergeResult of owner's self-transfer:
// the merged holdings are the receiver's (the owner's), no change.
func (t *written) mergeResult(owner coin.PartyID) map[string]any {
	return map[string]any{
		"optMergeTransferResult": map[string]any{
			"output": map[string]any{"tag": "TransferInstructionResult_Completed",
				"value": map[string]any{"receiverHoldingCids": t.createdHoldings(owner)}},
			"senderChangeCids": []coin.ContractID{}, "meta": metaJSON(nil),
		},
		"optExtraTransferResult": nil,
	}
}

// preapprovalSendResult is TransferPreapproval_SendResult of sender's
// transfer to the holdings t created for others: the transfer's result,
// its metadata (Splice's transfer tx-kind, the sender, the description
// as the reason) in meta.
func (t *written) preapprovalSendResult(sender coin.PartyID, description *string) preapprovalSendResultJSON {
	tr, burned := t.transferResult(sender, t.holdingsNotOf(sender), nil)
	values := map[string]string{MetaTxKind: "transfer", MetaSender: string(sender), MetaBurned: burned.String()}
	if description != nil {
		values[ledger.MetaReason] = *description
	}
	return preapprovalSendResultJSON{Result: tr, Meta: metaJSON(values)}
}

// burnResult is a burn's (splitAndBurn's) payer's amount paid and its
// TransferResult: the payer's change, the fees its history row records.
func (t *written) burnResult(payer coin.PartyID) (coin.Amount, transferResultJSON) {
	d := t.historyOf(payer)
	tr, _ := t.transferResult(payer, nil, &d.Fees)
	return d.Fees, tr
}

// transferResult is Splice's TransferResult of sender's transfer that
// created outputs, with the summary's amounts from sender's history row
// (its fees and holding fees); paid, when set, is an amount burned as an
// output (a burn's). It also returns what the transfer burned.
func (t *written) transferResult(sender coin.PartyID, outputs []coin.ContractID, paid *coin.Amount) (transferResultJSON, coin.Amount) {
	created := []variant{}
	outAmount := coin.Zero
	if paid != nil {
		outAmount = *paid
	}
	for _, cid := range outputs {
		for _, h := range t.Holdings {
			if h.ContractID != cid {
				continue
			}
			tag := "TransferResultAmulet"
			if h.LockHolder != "" {
				tag = "TransferResultLockedAmulet"
			}
			created = append(created, variant{Tag: tag, Value: cid})
			outAmount = outAmount.Add(h.Amount)
		}
	}
	change, changeAmount := any(nil), coin.Zero
	for _, h := range t.Holdings {
		if h.Owner == sender && h.LockHolder == "" {
			if change == nil {
				change = h.ContractID
			}
			changeAmount = changeAmount.Add(h.Amount)
		}
	}
	d := t.historyOf(sender)
	fees := d.Fees
	if paid != nil {
		fees = coin.Zero // the amount paid is the output burned
	}
	zero := coin.Zero.String()
	summary := transferSummary{
		InputAppRewardAmount: zero, InputValidatorRewardAmount: zero, InputSvRewardAmount: zero,
		InputAmuletAmount: outAmount.Add(fees).Add(changeAmount).Add(d.HoldingFees).String(),
		BalanceChanges:    []any{}, HoldingFees: d.HoldingFees.String(), OutputFees: []string{fees.String()},
		SenderChangeFee: zero, SenderChangeAmount: changeAmount.String(), AmuletPrice: t.Round.Price.String(),
	}
	return transferResultJSON{
		Round: t.roundJSON(), Summary: summary, CreatedAmulets: created, SenderChangeAmulet: change,
	}, fees.Add(d.HoldingFees)
}

// historyOf is party's first history row in t; zero fees for none.
func (t *written) historyOf(party coin.PartyID) commands.HistoryFact {
	for _, h := range t.History {
		if h.Party == party {
			return h
		}
	}
	return commands.HistoryFact{}
}

// createdOf is the first contract of template t created; "" for none.
func (t *written) createdOf(template string) coin.ContractID {
	for _, c := range t.Created {
		if c.TemplateID == template {
			return c.ContractID
		}
	}
	return ""
}

// roundJSON is t's round as Splice's Round record.
func (t *written) roundJSON() map[string]string {
	return map[string]string{"number": strconv.FormatInt(int64(t.Round.Number), 10)}
}

// metaJSON is a token-standard Metadata record.
func metaJSON(values map[string]string) map[string]any {
	if values == nil {
		values = map[string]string{}
	}
	return map[string]any{"values": values}
}

// receiverView adds to e what the receiver of a one-step transfer
// witnesses, so its transaction log shows the transfer with its memo: in
// Splice the preapproval's receiver signs the TransferPreapproval, so it
// witnesses TransferPreapproval_Send (an observer of it when that is the
// command's root, the exercise nested under a TransferFactory_Transfer
// that completed through the receiver's preapproval otherwise), whose
// result carries the transfer's metadata (tx-kind, sender, reason).
func (t *written) receiverView(e *commands.Exercise) {
	switch e.Choice {
	case "TransferPreapproval_Send":
		var arg struct {
			Sender coin.PartyID `json:"sender"`
		}
		_ = jsonv1.Unmarshal(e.ChoiceArgument, &arg)
		e.Observers = t.ownersBesides(arg.Sender)
	case "TransferFactory_Transfer":
		arg := t.factoryArg
		if arg == nil {
			arg = new(factoryTransferArg)
			_ = jsonv1.Unmarshal(e.ChoiceArgument, arg)
		}
		tr := arg.Transfer
		pre, _ := arg.ExtraArgs.Context.Values["transfer-preapproval"].Value.(string)
		if pre == "" || tr.Sender == tr.Receiver || t.createdOf(ledger.TemplateTransferInstruction) != "" || len(t.createdHoldings(tr.Receiver)) == 0 {
			return
		}
		var description *string
		if memo, ok := tr.Meta.Values[ledger.MetaReason]; ok {
			description = &memo
		}
		send := preapprovalSendArg{Amount: tr.Amount.String(), Sender: tr.Sender, Description: description, Inputs: make([]variant, 0, len(tr.Inputs))}
		for _, cid := range tr.Inputs {
			send.Inputs = append(send.Inputs, variant{Tag: "InputAmulet", Value: cid})
		}
		send.Context.AmuletRules, _ = arg.ExtraArgs.Context.Values["amulet-rules"].Value.(string)
		send.Context.Context.OpenMiningRound, _ = arg.ExtraArgs.Context.Values["open-round"].Value.(string)
		send.Context.Context.IssuingMiningRounds, send.Context.Context.ValidatorRights = []any{}, []any{}
		argJSON, err := json.Marshal(&send)
		if err != nil {
			return
		}
		result, err := json.Marshal(t.preapprovalSendResult(tr.Sender, description))
		if err != nil {
			return
		}
		e.Nested = &commands.Exercise{
			ContractID: coin.ContractID(pre), TemplateID: ledger.TemplateTransferPreapproval, Choice: "TransferPreapproval_Send",
			ChoiceArgument: argJSON, ActingParties: []coin.PartyID{tr.Sender}, ExerciseResult: result,
			Observers: []coin.PartyID{tr.Receiver},
		}
	}
}

// ownersBesides lists the owners of the unlocked holdings t created,
// party aside, each once.
func (t *written) ownersBesides(party coin.PartyID) []coin.PartyID {
	var out []coin.PartyID
	for _, h := range t.Holdings {
		if h.Owner != party && h.LockHolder == "" && !slices.Contains(out, h.Owner) {
			out = append(out, h.Owner)
		}
	}
	return out
}

// burnedMeta is the metadata of a token-standard choice's result that ran
// a transfer for party: as Splice's copyOnlyBurnMeta, only what the
// transfer burned (its fees and the inputs' holding fees, as party's
// history row in t records them), and only when not zero. The
// token-standard CLI derives what a transaction minted from the holdings'
// change and this burn, so without it a transfer of coin that paid
// holding fees reads as a negative mint.
func (t *written) burnedMeta(party coin.PartyID) map[string]any {
	d := t.historyOf(party)
	if burned := d.Fees.Add(d.HoldingFees); !burned.IsZero() {
		return metaJSON(map[string]string{MetaBurned: burned.String()})
	}
	return metaJSON(nil)
}

// historyPartyBesides is the first party other than party with a history
// row in t: the sender of an instruction its receiver accepts or rejects.
func (t *written) historyPartyBesides(party coin.PartyID) coin.PartyID {
	for _, h := range t.History {
		if h.Party != party {
			return h.Party
		}
	}
	return ""
}
