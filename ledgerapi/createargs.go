package ledgerapi

import (
	"bytes"
	"encoding/json"

	"github.com/ccwallet/ccwallet/ledgerapi/internal/canton"
)

// decodeCreateArgs decodes a CreateCommand's createArguments strictly (an
// unknown field is an error, as Canton refuses it), naming them in the
// error as Canton does, not the exercise's choiceArgument.
func decodeCreateArgs(raw json.RawMessage, dst any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		return canton.InvalidArgument("commands[0].CreateCommand.createArguments: %v", err)
	}
	return nil
}
