package canton

import (
	"errors"
	"net/http"
	"slices"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledger/userrights"
	"github.com/ccwallet/ccwallet/web"
)

// Caller is the authenticated user and its rights.
type Caller struct {
	User   ledger.UserInfo
	Rights userrights.UserRights
	Admin  bool
	// ActAs and ReadAs are the parties the user may act and read as
	// (ActAs implies ReadAs); ReadAny is CanReadAsAnyParty, ExecuteAny
	// CanExecuteAsAnyParty.
	ActAs, ReadAs       []coin.PartyID
	ReadAny, ExecuteAny bool
	// Actor is the admin acting as ActAs's party (impersonation.ActingAs), "".
	Actor string
	// Signed: the parties of the submission the caller executes signed
	// it (interactive execute), so it may act as external ones.
	Signed bool
}

// CallerOf is user u with its rights (the ledger's: the wallet's defaults
// and the admins' grants and revocations).
func CallerOf(u ledger.UserInfo, rs userrights.UserRights) *Caller {
	c := &Caller{User: u, Rights: rs}
	for _, r := range rs.Rights {
		switch r.Kind {
		case userrights.RightCanActAs:
			c.ActAs = append(c.ActAs, r.Party)
		case userrights.RightCanReadAs:
			c.ReadAs = append(c.ReadAs, r.Party)
		case userrights.RightCanReadAsAnyParty:
			c.ReadAny = true
		case userrights.RightParticipantAdmin:
			c.Admin = true
		case userrights.RightCanExecuteAsAnyParty:
			c.ExecuteAny = true
		}
	}
	return c
}

// CanRead reports whether c may read as party.
func (c *Caller) CanRead(p coin.PartyID) bool {
	return c.ReadAny || slices.Contains(c.ActAs, p) || slices.Contains(c.ReadAs, p)
}

// RequireRead refuses unless c may read as every party.
func (c *Caller) RequireRead(parties ...coin.PartyID) error {
	for _, p := range parties {
		if !c.CanRead(p) {
			return PermissionDenied("user %q has no right to read as party %s", c.User.Name, p)
		}
	}
	return nil
}

// RequireAdmin refuses unless c is ParticipantAdmin.
func (c *Caller) RequireAdmin() error {
	if !c.Admin {
		return PermissionDenied("user %q is not a participant admin", c.User.Name)
	}
	return nil
}

// DecodeError is a request body that does not decode.
type DecodeError struct {
	Status int
	Msg    string
}

func (e *DecodeError) Error() string { return e.Msg }

// MaxSignatures bounds the signatures a request may carry: an
// interactive execute's, per party and in all, and an external party's
// allocation's, with its transactions.
const MaxSignatures = 16

// MaxBody bounds request bodies (and a WebSocket's messages).
const MaxBody = 1 << 20

// Decode reads the JSON body into dst.
func Decode(r *http.Request, dst any) error {
	if err := web.DecodeJSONLimit(r, dst, MaxBody); err != nil {
		var re *web.RequestError
		if errors.As(err, &re) {
			return &DecodeError{Status: re.Status, Msg: re.Msg}
		}
		return err
	}
	return nil
}

// WriteJSON answers v with 200.
func WriteJSON(w http.ResponseWriter, v any) error {
	return web.WriteJSON(w, http.StatusOK, v)
}

// ParseParty checks a party id the client sent.
func ParseParty(field, s string) (coin.PartyID, error) {
	p, err := coin.ParsePartyID(s)
	if err != nil {
		return "", InvalidArgument("%s: %v", field, err)
	}
	return p, nil
}
