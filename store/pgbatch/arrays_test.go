package pgbatch

import (
	"bytes"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgtype"
)

// TestAppendArrayMatchesPgx: for every kind of array the pipelined
// statements pass, appendArray writes the bytes pgx's own binary encoder
// writes (empty, NULL elements, text that the text format would have to
// quote, times before Postgres's epoch and with sub-microsecond parts);
// and it declines a kind or a type it does not know, and a nil slice,
// so pgx encodes them.
func TestAppendArrayMatchesPgx(t *testing.T) {
	m := pgtype.NewMap()
	s := func(v string) *string { return &v }
	n := func(v int64) *int64 { return &v }
	tm := func(v time.Time) *time.Time { return &v }
	at := time.Date(2026, 11, 25, 1, 2, 3, 456789123, time.UTC)
	before := time.Date(1969, 7, 20, 20, 17, 40, 999, time.FixedZone("x", -5*3600))
	for _, tt := range []struct {
		name string
		oid  uint32
		v    any
	}{
		{"text empty", oidTextArray, []string{}},
		{"text", oidTextArray, []string{"", "a", `{"k": "v, w"}`, `back\slash`, "NULL", "é ✓", "a,b}"}},
		{"text nullable", oidTextArray, []*string{s("x"), nil, s("")}},
		{"text nullable, none null", oidTextArray, []*string{s("x")}},
		{"text nullable empty", oidTextArray, []*string{}},
		{"int8", oidInt8Array, []int64{0, 1, -1, 1 << 62, -1 << 63}},
		{"int8 empty", oidInt8Array, []int64{}},
		{"int8 nullable", oidInt8Array, []*int64{nil, n(7), nil}},
		{"bool", oidBoolArray, []bool{true, false, true}},
		{"timestamptz", oidTimestamptzArray, []time.Time{at, before, time.Unix(0, 0), time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)}},
		{"timestamptz nullable", oidTimestamptzArray, []*time.Time{tm(at), nil}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			want, err := m.Encode(tt.oid, pgtype.BinaryFormatCode, tt.v, nil)
			if err != nil {
				t.Fatal(err)
			}
			prefix := []byte("kept")
			got, ok := appendArray(bytes.Clone(prefix), tt.oid, tt.v)
			if !ok {
				t.Fatal("declined")
			}
			if !bytes.Equal(got[:len(prefix)], prefix) || !bytes.Equal(got[len(prefix):], want) {
				t.Errorf("bytes:\n got %x\nwant %x", got[len(prefix):], want)
			}
		})
	}
	for _, tt := range []struct {
		name string
		oid  uint32
		v    any
	}{
		{"a scalar", oidText, "x"},
		{"strings for int8[]", oidInt8Array, []string{"1"}},
		{"int64s for text[]", oidTextArray, []int64{1}},
		{"another element type", oidInt8Array, []int32{1}},
		{"a nil slice (NULL)", oidTextArray, []string(nil)},
		{"a nil slice of pointers (NULL)", oidInt8Array, []*int64(nil)},
	} {
		if got, ok := appendArray([]byte("kept"), tt.oid, tt.v); ok || string(got) != "kept" {
			t.Errorf("%s: taken (%v) or buffer changed (%q)", tt.name, ok, got)
		}
	}
}
