package ledgerapi

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger/apiread"
	"github.com/ccwallet/ccwallet/ledger/commands"
	"github.com/ccwallet/ccwallet/ledger/fault"
	"github.com/ccwallet/ccwallet/ledger/featured"
	"github.com/ccwallet/ccwallet/ledgerapi/internal/canton"
)

// The featured app's DelegateProxy as the wallet SDK's exchange
// extension drives it (coinChoices lists its choices).

// createDelegateProxy is the CreateCommand of a DelegateProxy, signed by
// its provider.
func (s *Server) createDelegateProxy(r *http.Request, actAs []coin.PartyID, raw json.RawMessage, cmd commands.Command) (int64, error) {
	var arg struct {
		Provider string `json:"provider"`
		Delegate string `json:"delegate"`
	}
	if err := decodeArg(raw, &arg); err != nil {
		return 0, err
	}
	var p featured.DelegateProxy
	var err error
	if p.Provider, err = canton.ParseParty("createArguments.provider", arg.Provider); err != nil {
		return 0, err
	}
	if p.Delegate, err = canton.ParseParty("createArguments.delegate", arg.Delegate); err != nil {
		return 0, err
	}
	if err := requireController("the provider", p.Provider, actAs); err != nil {
		return 0, err
	}
	cid, err := s.w.Featured.CreateDelegateProxy(r.Context(), p, cmd)
	if err != nil {
		return 0, err
	}
	return s.offsetOf(r, cid)
}

// runInner is Server.run, reached through a variable: the dispatch reads
// coinChoices, so a choice that dispatches again cannot name it directly.
var runInner func(s *Server, r *http.Request, sb *submission) (int64, error)

func init() { runInner = (*Server).run }

// damlDecimal is a Daml Decimal, which the JSON API takes as a string or
// a number.
type damlDecimal coin.Amount

func (d *damlDecimal) UnmarshalJSON(b []byte) error {
	a, err := coin.ParseCanonical(strings.Trim(string(b), `"`))
	if err != nil {
		return err
	}
	*d = damlDecimal(a)
	return nil
}

// proxyChoice is a DelegateProxy choice by its delegate (the first actAs
// party): the token standard's choice it wraps runs as if exercised
// directly, then the provider's beneficiaries earn the featured app
// activity's reward.
func (s *Server) proxyChoice(r *http.Request, sb *submission) (int64, error) {
	var arg struct {
		Cid      string `json:"cid"`
		ProxyArg *struct {
			FeaturedAppRightCid string `json:"featuredAppRightCid"`
			Beneficiaries       []struct {
				Beneficiary string      `json:"beneficiary"`
				Weight      damlDecimal `json:"weight"`
			} `json:"beneficiaries"`
			ChoiceArg json.RawMessage `json:"choiceArg"`
		} `json:"proxyArg"`
	}
	if err := decodeArg(sb.ex.ChoiceArgument, &arg); err != nil {
		return 0, err
	}
	if arg.ProxyArg == nil {
		return 0, canton.Err(canton.CodeMissingField, "choiceArgument.proxyArg: the wrapped choice's argument is required")
	}
	cid, err := coin.ParseContractID(arg.Cid)
	if err != nil {
		return 0, canton.InvalidArgument("choiceArgument.cid: %v", err)
	}
	right, err := coin.ParseContractID(arg.ProxyArg.FeaturedAppRightCid)
	if err != nil {
		return 0, canton.InvalidArgument("choiceArgument.proxyArg.featuredAppRightCid: %v", err)
	}
	bs := make([]featured.Beneficiary, 0, len(arg.ProxyArg.Beneficiaries))
	for i, b := range arg.ProxyArg.Beneficiaries {
		p, err := canton.ParseParty("choiceArgument.proxyArg.beneficiaries["+strconv.Itoa(i)+"].beneficiary", b.Beneficiary)
		if err != nil {
			return 0, err
		}
		bs = append(bs, featured.Beneficiary{Party: p, Weight: coin.Amount(b.Weight)})
	}
	if _, err := s.w.Featured.CheckProxyUse(r.Context(), sb.actAs[0], sb.cid, right, bs); errors.Is(err, fault.ErrForbidden) {
		return 0, canton.Err(canton.CodeAuthorization, "%v", err)
	} else if err != nil {
		return 0, err
	}
	inner := *sb
	inner.cid = cid
	inner.ex = canton.ExerciseCommand{ContractID: arg.Cid, Choice: strings.TrimPrefix(sb.ex.Choice, "DelegateProxy_"), ChoiceArgument: arg.ProxyArg.ChoiceArg}
	inner.iface = apiread.InterfaceTransferInstruction
	if inner.ex.Choice == "TransferFactory_Transfer" {
		inner.iface = apiread.InterfaceTransferFactory
	}
	off, err := runInner(s, r, &inner)
	if err != nil {
		return 0, err
	}
	sb.updateID = inner.updateID
	if err := s.w.Featured.ConvertActivityMarker(r.Context(), bs); err != nil {
		// The choice ran; the marker's reward is lost, not the transfer.
		s.log.ErrorContext(r.Context(), "ledger api: converting a featured app activity marker failed", "command_id", sb.commandID, "err", err)
	}
	return off, nil
}
