package interactive

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"testing"

	"github.com/ccwallet/ccwallet/web"
)

// TestPrepareAnswer holds the appended answer to the bytes json.Marshal
// writes for it, over transactions of several lengths (base64's padding),
// with and without hashing details.
func TestPrepareAnswer(t *testing.T) {
	for _, details := range []string{"", "scheme V2: SHA-256(00000030 02 transaction 0a metadata 0b) = 0c"} {
		for _, n := range []int{0, 1, 2, 3, 100, 7001} {
			raw := bytes.Repeat([]byte{0xfb, 0x01, 0x7f}, n)[:n]
			hash := sha256.Sum256(raw)
			m := map[string]string{
				"preparedTransaction":     base64.StdEncoding.EncodeToString(raw),
				"preparedTransactionHash": base64.StdEncoding.EncodeToString(hash[:]),
				"hashingSchemeVersion":    hashingSchemeV2,
			}
			if details != "" {
				m["hashingDetails"] = details
			}
			want, err := web.MarshalJSONBody(m)
			if err != nil {
				t.Fatal(err)
			}
			if got := prepareAnswer(raw, hash[:], details); !bytes.Equal(got, want) {
				t.Fatalf("%d bytes, details %q: answer\n%s\nwant\n%s", n, details, got, want)
			}
		}
	}
}
