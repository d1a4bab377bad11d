package ui

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/a-h/templ"
	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/fault"
	"github.com/ccwallet/ccwallet/views"
	"github.com/ccwallet/ccwallet/web"
	"github.com/google/uuid"
)

// defaultExpires is the send form's default lifetime of an offer or
// instruction (a views.SendExpiries value); a post without one gets it.
const defaultExpires = "1d"

// uiSendPage serves GET /send: a fresh form with a new dedup id. ?to=
// fills the receiver in, checked, so the method is chosen for it.
func (h *Handler) uiSendPage(w http.ResponseWriter, r *http.Request, s *web.Session) error {
	f := views.SendForm{CSRF: s.CSRF, Expires: defaultExpires, DedupID: uuid.NewString(),
		Receiver: strings.TrimSpace(r.URL.Query().Get("to"))}
	f.Methods = h.checkReceiver(r.Context(), uiParty(r), f.Receiver, "", "")
	return h.renderSend(w, r, s, http.StatusOK, f)
}

// renderSend answers the send form: the page, or for htmx the form alone
// with 200 whatever happened (an error at its field included), so htmx
// swaps it and the browser logs no failed request.
func (h *Handler) renderSend(w http.ResponseWriter, r *http.Request, s *web.Session, status int, f views.SendForm) error {
	b, err := h.l.Balance(r.Context(), uiParty(r))
	if err != nil {
		return err
	}
	f.AmountUSD = amountUSD(f.Amount, b.Price)
	h.named(r.Context(), &f)
	if isFragment(r) {
		return render(w, r, http.StatusOK, views.SendFormView(f))
	}
	return render(w, r, status, views.SendPage(views.Send{Page: h.page(s, "Send", "send"), Balance: b.EffectiveUnlocked.String(),
		BalanceUSD: ledger.CoinToUSD(b.EffectiveUnlocked, b.Price).String(), Form: f}))
}

// amountUSD is amount (as typed) in USD at price; "" unless it is a
// positive amount.
func amountUSD(amount string, price coin.Amount) string {
	a, err := coin.ParseAmount(strings.TrimSpace(amount))
	if err != nil || !a.IsPositive() {
		return ""
	}
	return ledger.CoinToUSD(a, price).String()
}

// uiSendUSD serves GET /send/usd, the htmx preview of the amount in USD.
func (h *Handler) uiSendUSD(w http.ResponseWriter, r *http.Request, s *web.Session) error {
	_, price, err := h.l.CurrentRound(r.Context())
	if err != nil {
		return err
	}
	return render(w, r, http.StatusOK, views.SendUSD(amountUSD(r.URL.Query().Get("amount"), price)))
}

// checkReceiver looks receiver up for the method choice: whether it is a
// known party and how a transfer to it settles (the ledger's rule: in one
// step through a valid preapproval). The default is direct when it can
// be, else offer; a method other than the previous default (prevDefault,
// what the form chose for the user before) is the user's and stays,
// unless it is direct and the receiver has no preapproval.
func (h *Handler) checkReceiver(ctx context.Context, sender coin.PartyID, receiver string, method, prevDefault views.SendMethod) views.SendMethods {
	m := views.SendMethods{Method: method, Default: views.SendOffer}
	if receiver = strings.TrimSpace(receiver); receiver != "" {
		m.Checked = true
		p, err := h.receiverParty(ctx, sender, receiver)
		if err == nil {
			m.To = views.P(p)
			var kind ledger.TransferKind
			if kind, err = h.w.Registry.TransferKind(ctx, sender, p); err == nil && kind == ledger.TransferDirect {
				m.Preapproved, m.Default = true, views.SendDirect
				if pa, perr := h.w.Provider.Preapproval(ctx, p); perr == nil {
					m.PreapprovalExpires = pa.ExpiresAt
				}
			}
		}
		if err != nil {
			m.CheckError, _ = inline(err)
			if m.CheckError == "" {
				m.CheckError = "the receiver could not be checked; try again"
			}
		}
	}
	if m.Method == "" || m.Method == prevDefault {
		m.Method = m.Default
	}
	if m.Method == views.SendDirect && !m.Preapproved {
		m.Method = views.SendOffer
	}
	return m
}

// receiverParty reads receiver (a party ID or a name, resolved by the
// ledger to its owner) and checks it is another known party.
func (h *Handler) receiverParty(ctx context.Context, sender coin.PartyID, receiver string) (coin.PartyID, error) {
	p, err := h.w.Names.ResolveParty(ctx, "receiver", receiver)
	if err != nil {
		return "", err
	}
	if p == sender {
		return "", badRequest("receiver: that is your own party")
	}
	if err := h.l.KnownParty(ctx, p); errors.Is(err, fault.ErrNotFound) {
		return "", badRequest("receiver: no party " + string(p) + " is known on this network; check the ID with the receiver")
	} else if err != nil {
		return "", err
	}
	return p, nil
}

// uiSendCheck serves GET /send/check, the htmx receiver check: the method
// choice, with the direct method only for a receiver with a preapproval.
func (h *Handler) uiSendCheck(w http.ResponseWriter, r *http.Request, s *web.Session) error {
	q := r.URL.Query()
	m := h.checkReceiver(r.Context(), uiParty(r), q.Get("receiver"), views.SendMethod(q.Get("method")), views.SendMethod(q.Get("default_method")))
	h.named(r.Context(), &m)
	return render(w, r, http.StatusOK, templ.Join(views.SendMethodsView(m), views.SendWho(m, true)))
}

// uiSend serves POST /send. action=check re-renders the form with the
// receiver checked (the no-JavaScript check); otherwise it sends by the
// chosen method (none chosen: the ledger's rule, as the check's default)
// and redirects, or shows the error inline with 422.
func (h *Handler) uiSend(w http.ResponseWriter, r *http.Request, s *web.Session) error {
	sender := uiParty(r)
	f := views.SendForm{
		CSRF: s.CSRF, Receiver: strings.TrimSpace(r.PostFormValue("receiver")), Amount: strings.TrimSpace(r.PostFormValue("amount")),
		Description: strings.TrimSpace(r.PostFormValue("description")), Expires: strings.TrimSpace(r.PostFormValue("expires")),
		DedupID: strings.TrimSpace(r.PostFormValue("dedup_id")),
	}
	method := views.SendMethod(r.PostFormValue("method"))
	if f.DedupID == "" {
		f.DedupID = uuid.NewString()
	}
	if f.Expires == "" {
		f.Expires = defaultExpires
	}
	f.Methods = h.checkReceiver(r.Context(), sender, f.Receiver, method, views.SendMethod(r.PostFormValue("default_method")))
	if method == "" {
		method = f.Methods.Method
	}
	switch r.PostFormValue("action") {
	case "check", "edit":
		// The form's method choice may change, so keep the selection.
		return h.renderSend(w, r, s, http.StatusOK, f)
	case "max":
		max, err := h.w.Holdings.MaxSend(r.Context(), sender)
		if err != nil {
			return err
		}
		f.Amount = max.Short()
		if !max.IsPositive() {
			f.Amount = ""
			f.Error, f.ErrorField = "You have no coin you can send now.", "amount"
		}
		return h.renderSend(w, r, s, http.StatusOK, f)
	case "confirm":
	default:
		// A transfer that completes at once cannot be undone: check the
		// form, then show it to confirm.
		if oneStep(method, f.Methods) {
			if _, _, err := h.sendInput(r.Context(), sender, f); err != nil {
				return h.sendError(w, r, s, f, err)
			}
			f.Review, f.Method = true, method
			return h.renderSend(w, r, s, http.StatusOK, f)
		}
	}
	sent := method
	err := settled(r.Context(), func() error { return h.send(r.Context(), sender, method, &sent, f) })
	if errors.Is(err, fault.ErrDuplicate) {
		// A double submit of the same form: the first one sent.
		err = nil
	}
	if err != nil {
		return h.sendError(w, r, s, f, err)
	}
	w.Header().Set("HX-Trigger", "wallet-changed")
	done(w, r, "/send", "sent-"+string(sent))
	return nil
}

// oneStep reports whether sending by method completes at once: a direct
// transfer or an instruction to a receiver with a preapproval (the
// ledger's TransferKind, which the check asked). A direct send to a
// receiver without one is refused by send, with no review.
func oneStep(method views.SendMethod, m views.SendMethods) bool {
	return m.Preapproved && (method == views.SendDirect || method == views.SendInstruction)
}

// sendError shows the user's mistake at its field (422 for a page, 200
// with the form for htmx); other errors are the error page's.
func (h *Handler) sendError(w http.ResponseWriter, r *http.Request, s *web.Session, f views.SendForm, err error) error {
	msg, ok := inline(err)
	if !ok {
		return err
	}
	f.Error, f.ErrorField, f.Review = msg, sendErrorField(err), false
	return h.renderSend(w, r, s, http.StatusUnprocessableEntity, f)
}

// sendErrorField is the send form's field an error is about: the field
// its message starts with ("amount: ..."), the amount for too little
// money, else none.
func sendErrorField(err error) string {
	if errors.Is(err, fault.ErrInsufficientFunds) {
		return "amount"
	}
	_, msg := statusOf(err)
	field, _, _ := strings.Cut(fieldPrefix.FindString(msg), ":")
	switch field {
	case "receiver", "amount", "description", "expires":
		return field
	}
	return ""
}

// sendInput reads the form's receiver and amount as a send needs them.
func (h *Handler) sendInput(ctx context.Context, sender coin.PartyID, f views.SendForm) (coin.PartyID, coin.Amount, error) {
	if f.Receiver == "" {
		return "", coin.Zero, badRequest("receiver: enter the receiver's name or party ID")
	}
	receiver, err := h.receiverParty(ctx, sender, f.Receiver)
	if err != nil {
		return "", coin.Zero, err
	}
	if f.Amount == "" {
		return "", coin.Zero, badRequest("amount: enter an amount in CC")
	}
	amount, err := coin.ParseAmount(f.Amount)
	if err != nil {
		return "", coin.Zero, badRequest("amount: " + err.Error())
	}
	if !amount.IsPositive() {
		return "", coin.Zero, badRequest("amount: enter an amount greater than 0")
	}
	return receiver, amount, nil
}

// send performs one send of the form; the form's dedup id makes it
// idempotent. sent is set to how the send settled: a transfer instruction
// to a receiver with a preapproval completes at once (direct).
func (h *Handler) send(ctx context.Context, sender coin.PartyID, method views.SendMethod, sent *views.SendMethod, f views.SendForm) error {
	receiver, amount, err := h.sendInput(ctx, sender, f)
	if err != nil {
		return err
	}
	expires := func() (time.Time, error) {
		for _, e := range views.SendExpiries {
			if e.Value == f.Expires {
				return time.Now().Add(e.Duration), nil
			}
		}
		labels := make([]string, len(views.SendExpiries))
		for i, e := range views.SendExpiries {
			labels[i] = e.Label
		}
		return time.Time{}, badRequest("expires: choose how long the receiver has to accept: " + strings.Join(labels, ", "))
	}
	switch method {
	case views.SendOffer:
		at, err := expires()
		if err != nil {
			return err
		}
		_, _, err = h.l.Offers().Create(ctx, ledger.OfferRequest{Sender: sender, Receiver: receiver, Amount: amount,
			Description: f.Description, ExpiresAt: at, TrackingID: f.DedupID})
		return err
	case views.SendDirect:
		// Re-checked here: the preapproval may have ended since the form
		// showed the option.
		if _, err := h.w.Provider.Preapproval(ctx, receiver); errors.Is(err, fault.ErrNotFound) {
			return badRequest("receiver: " + string(receiver) + " has not pre-approved direct transfers; send a transfer offer instead")
		} else if err != nil {
			return err
		}
		_, err := h.l.Preapprovals().Send(ctx, ledger.PreapprovalSend{Sender: sender, Receiver: receiver, Amount: amount,
			DeduplicationID: f.DedupID, Description: f.Description})
		return err
	case views.SendInstruction:
		at, err := expires()
		if err != nil {
			return err
		}
		// A double submit is told how the first one settled (its answer is
		// ErrDuplicate), so ask the ledger's rule first.
		if kind, err := h.w.Registry.TransferKind(ctx, sender, receiver); err != nil {
			return err
		} else if kind == ledger.TransferDirect {
			*sent = views.SendDirect
		}
		res, err := h.l.Instructions().Create(ctx, ledger.TransferInstructionRequest{Sender: sender, Receiver: receiver,
			Amount: amount, Description: f.Description, ExecuteBefore: at, TrackingID: f.DedupID})
		if err == nil {
			*sent = views.SendInstruction
			if res.Status == ledger.InstructionCompleted {
				*sent = views.SendDirect
			}
		}
		return err
	}
	return badRequest("method: choose how to send")
}
