// Package workflows builds the workflows that live in packages of their
// own on top of the ledger's core (ledger.Tx) and wires them together:
// the hooks one passes another, the automations AdvanceRounds runs. cmd
// builds one Set per ledger and hands it to the handlers, the Ledger API
// and the jobs; a test that builds those without one gets New's.
package workflows

import (
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/allocations"
	"github.com/ccwallet/ccwallet/ledger/apppayments"
	"github.com/ccwallet/ccwallet/ledger/external"
	"github.com/ccwallet/ccwallet/ledger/names"
	"github.com/ccwallet/ccwallet/ledger/subscriptions"
)

// Set is the workflows of one ledger.
type Set struct {
	// Ledger is the core they are built on.
	Ledger *ledger.Ledger
	// Subscriptions are Splice's subscriptions; Names the name service,
	// paid by them.
	Subscriptions *subscriptions.Service
	Names         *names.Service
	// AppPayments are Splice's app payments.
	AppPayments *apppayments.Service
	// Allocations is the token standard's DvP with the trading app.
	Allocations *allocations.Service
	// External is external parties' interactive submission.
	External *external.Service
}

// New builds l's workflows. Call it once per ledger: it wires their
// automations into l (ledger.OnAdvance).
func New(l *ledger.Ledger) *Set {
	s := build(l)
	l.OnAdvance(s.Subscriptions.Automations()...)
	return s
}

// ForValidator builds the workflow packages of another validator's view
// of s's network (ledger.Ledger.Validator): they act as that validator;
// the network's automations stay s's, registered once by New.
func (s *Set) ForValidator(l *ledger.Ledger) *Set { return build(l) }

// build makes the workflow packages of l, without registering their
// automations.
func build(l *ledger.Ledger) *Set {
	subs := subscriptions.New(l, map[string]subscriptions.App{names.AppName: names.App(l)})
	return &Set{Ledger: l, Subscriptions: subs, Names: names.New(l, subs), AppPayments: apppayments.New(l),
		Allocations: allocations.New(l), External: external.New(l)}
}
