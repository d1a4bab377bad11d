package main

import (
	"encoding/base64"
	"strconv"
	"time"

	"github.com/go-json-experiment/json/jsontext"
)

// The bodies of the runs' requests are appended here and their answers
// decoded into the few fields read (jsonv2.Unmarshal into structs), not
// built as maps and encoded: the load generator is a client on the cores
// it measures, and the maps' JSON was a quarter of its CPU in the Ledger
// API and SDK rows (bench/NOTES.md). The bytes on the wire mean what the
// maps' did.

// appendStr appends s as a JSON string.
func appendStr(b []byte, s string) []byte {
	b, _ = jsontext.AppendQuote(b, s) // fails only on invalid UTF-8, kept as is
	return b
}

const emptyMetaJSON = `{"values":{}}`

// appendTransfer appends the token standard's Transfer of amount from
// sender to receiver, requested at now.
func appendTransfer(b []byte, dso, sender, receiver, amount string, now time.Time) []byte {
	b = append(b, `{"sender":`...)
	b = appendStr(b, sender)
	b = append(b, `,"receiver":`...)
	b = appendStr(b, receiver)
	b = append(b, `,"amount":`...)
	b = appendStr(b, amount)
	b = append(b, `,"instrumentId":{"admin":`...)
	b = appendStr(b, dso)
	b = append(b, `,"id":"Amulet"},"requestedAt":"`...)
	b = now.Add(-time.Second).UTC().AppendFormat(b, time.RFC3339Nano)
	b = append(b, `","executeBefore":"`...)
	b = now.Add(time.Hour).UTC().AppendFormat(b, time.RFC3339Nano)
	return append(b, `","inputHoldingCids":[],"meta":`+emptyMetaJSON+`}`...)
}

// factoryBody is the registry's transfer-factory request for transfer.
func factoryBody(dso string, transfer []byte) []byte {
	b := make([]byte, 0, 160+len(transfer))
	b = append(b, `{"choiceArguments":{"expectedAdmin":`...)
	b = appendStr(b, dso)
	b = append(b, `,"transfer":`...)
	b = append(b, transfer...)
	return append(b, `,"extraArgs":{"context":`+emptyMetaJSON+`,"meta":`+emptyMetaJSON+`}},"excludeDebugFields":true}`...)
}

// transferCommand is the ExerciseCommand of TransferFactory_Transfer on
// factory with the choice context's data.
func transferCommand(dso, factory string, transfer, context []byte) []byte {
	b := make([]byte, 0, 256+len(transfer)+len(context))
	b = append(b, `{"ExerciseCommand":{"templateId":`...)
	b = appendStr(b, factoryInterface)
	b = append(b, `,"contractId":`...)
	b = appendStr(b, factory)
	b = append(b, `,"choice":"TransferFactory_Transfer","choiceArgument":{"expectedAdmin":`...)
	b = appendStr(b, dso)
	b = append(b, `,"transfer":`...)
	b = append(b, transfer...)
	b = append(b, `,"extraArgs":{"context":`...)
	b = append(b, context...)
	return append(b, `,"meta":`+emptyMetaJSON+`}}}}`...)
}

// submitBody is submit-and-wait's request of cmd as party.
func submitBody(cmd []byte, commandID, party string, disclosed []byte) []byte {
	b := make([]byte, 0, 96+len(cmd)+len(disclosed))
	b = append(b, `{"commands":[`...)
	b = append(b, cmd...)
	b = append(b, `],"commandId":`...)
	b = appendStr(b, commandID)
	b = append(b, `,"actAs":[`...)
	b = appendStr(b, party)
	b = append(b, `],"disclosedContracts":`...)
	b = append(b, disclosed...)
	return append(b, '}')
}

// prepareBody is prepare's request of cmd as x.
func prepareBody(x External, commandID string, cmd, disclosed []byte) []byte {
	b := make([]byte, 0, 320+len(cmd)+len(disclosed))
	b = append(b, `{"userId":`...)
	b = appendStr(b, x.User)
	b = append(b, `,"commandId":`...)
	b = appendStr(b, commandID)
	b = append(b, `,"commands":[`...)
	b = append(b, cmd...)
	b = append(b, `],"actAs":[`...)
	b = appendStr(b, x.Party)
	b = append(b, `],"readAs":[],"disclosedContracts":`...)
	b = append(b, disclosed...)
	b = append(b, `,"synchronizerId":`...)
	b = appendStr(b, x.Sync)
	return append(b, `,"packageIdSelectionPreference":[],"verboseHashing":false}`...)
}

// executeBody is execute's request of the prepared transaction with x's
// signature sig of its hash.
func executeBody(x External, commandID, prepared string, sig []byte) []byte {
	b := make([]byte, 0, 512+len(prepared))
	b = append(b, `{"preparedTransaction":`...)
	b = appendStr(b, prepared)
	b = append(b, `,"hashingSchemeVersion":"HASHING_SCHEME_VERSION_V2","partySignatures":{"signatures":[{"party":`...)
	b = appendStr(b, x.Party)
	b = append(b, `,"signatures":[`...)
	b = appendSig(b, sig, x.fingerprint())
	b = append(b, `]}]},"deduplicationPeriod":{"Empty":{}},"submissionId":`...)
	b = appendStr(b, commandID)
	b = append(b, `,"userId":`...)
	b = appendStr(b, x.User)
	return append(b, '}')
}

// appendSig appends a CONCAT Ed25519 signature sig by the key whose
// fingerprint is fp, in the JSON Ledger API's shape.
func appendSig(b, sig []byte, fp string) []byte {
	b = append(b, `{"format":"SIGNATURE_FORMAT_CONCAT","signature":"`...)
	b = base64.StdEncoding.AppendEncode(b, sig)
	b = append(b, `","signedBy":`...)
	b = appendStr(b, fp)
	return append(b, `,"signingAlgorithmSpec":"SIGNING_ALGORITHM_SPEC_ED25519"}`...)
}

// completionsBody is POST /v2/commands/completions' request of x's
// completions after offset after.
func completionsBody(x External, after int64) []byte {
	b := make([]byte, 0, 256)
	b = append(b, `{"userId":`...)
	b = appendStr(b, x.User)
	b = append(b, `,"parties":[`...)
	b = appendStr(b, x.Party)
	b = append(b, `],"beginExclusive":`...)
	b = strconv.AppendInt(b, after, 10)
	return append(b, '}')
}

// factoryAnswer is what a run reads of the transfer factory's answer.
type factoryAnswer struct {
	FactoryID     string `json:"factoryId"`
	ChoiceContext struct {
		ChoiceContextData  jsontext.Value `json:"choiceContextData"`
		DisclosedContracts jsontext.Value `json:"disclosedContracts"`
	} `json:"choiceContext"`
}
