package ledgerapi

import (
	"net/http"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/ledger"
	"github.com/ccwallet/ccwallet/ledgerapi/internal/canton"
)

// DecodeTransferSubmission decodes and checks r's submit-and-wait body
// as the submission of user acting as actAs is, up to the ledger: the
// commands, the ExerciseCommand, the disclosed contracts' blobs, the
// exercise stored with the completion and TransferFactory_Transfer's
// argument.
func (s *Server) DecodeTransferSubmission(r *http.Request, user string, actAs []coin.PartyID) error {
	var cmds jsCommands
	if err := canton.Decode(r, &cmds); err != nil {
		return err
	}
	sb, err := s.check(&canton.Caller{User: ledger.UserInfo{Name: user}, ActAs: actAs}, &cmds)
	if err != nil {
		return err
	}
	sb.completion.Exercise = exerciseOf(sb)
	var arg transferArg
	return decodeArg(sb.ex.ChoiceArgument, &arg)
}
