package pgbatch

import (
	"encoding/binary"
	"time"
)

// Postgres type OIDs of the arrays the pipelined statements take, and of
// their elements.
const (
	oidBool             = 16
	oidInt8             = 20
	oidText             = 25
	oidTimestamptz      = 1184
	oidBoolArray        = 1000
	oidTextArray        = 1009
	oidInt8Array        = 1016
	oidTimestamptzArray = 1185
)

// microsecondsToY2K is the Unix time of 2000-01-01 UTC, Postgres's epoch
// for timestamps, in microseconds.
const microsecondsToY2K = 946_684_800 * 1_000_000

// appendArray appends the binary wire form of a, a one-dimensional array
// parameter whose Postgres type is oid, and reports whether it knew the
// pair; a nil slice it leaves to pgx, which sends NULL. pgx's general
// encoder plans every value through its type map, and was 7% of the Go
// process's CPU at 1,000 sends/s: a batch passes about fifty arrays.
// These few kinds cover them all, and TestAppendArrayMatchesPgx holds
// each to pgx's own bytes.
func appendArray(buf []byte, oid uint32, a any) ([]byte, bool) {
	switch v := a.(type) {
	case []string:
		if oid == oidTextArray && v != nil {
			return appendElems(buf, oidText, v, appendText), true
		}
	case []*string:
		if oid == oidTextArray && v != nil {
			return appendNullables(buf, oidText, v, appendText), true
		}
	case []int64:
		if oid == oidInt8Array && v != nil {
			return appendElems(buf, oidInt8, v, appendInt8), true
		}
	case []*int64:
		if oid == oidInt8Array && v != nil {
			return appendNullables(buf, oidInt8, v, appendInt8), true
		}
	case []bool:
		if oid == oidBoolArray && v != nil {
			return appendElems(buf, oidBool, v, appendBool), true
		}
	case []time.Time:
		if oid == oidTimestamptzArray && v != nil {
			return appendElems(buf, oidTimestamptz, v, appendTimestamptz), true
		}
	case []*time.Time:
		if oid == oidTimestamptzArray && v != nil {
			return appendNullables(buf, oidTimestamptz, v, appendTimestamptz), true
		}
	}
	return buf, false
}

// appendElems appends the array of vs, each element written by put.
func appendElems[T any](buf []byte, elem uint32, vs []T, put func([]byte, T) []byte) []byte {
	return appendArrayOf(buf, elem, len(vs), func(i int) (T, bool) { return vs[i], true }, put)
}

// appendNullables appends the array of vs, nil ones as NULL.
func appendNullables[T any](buf []byte, elem uint32, vs []*T, put func([]byte, T) []byte) []byte {
	return appendArrayOf(buf, elem, len(vs), func(i int) (v T, ok bool) {
		if vs[i] != nil {
			v, ok = *vs[i], true
		}
		return v, ok
	}, put)
}

// appendArrayOf appends the array of n elements whose i-th is at(i),
// NULL when at says false, each other written by put: the one place the
// arrays' wire form is written, for a slice (appendElems,
// appendNullables) as for a column read from its rows (column.appendTo).
func appendArrayOf[T any](buf []byte, elem uint32, n int, at func(i int) (T, bool), put func([]byte, T) []byte) []byte {
	start := len(buf)
	buf = arrayHeader(buf, elem, n, false)
	for i := range n {
		v, ok := at(i)
		if !ok {
			binary.BigEndian.PutUint32(buf[start+4:], 1)         // the header's has-NULLs flag
			buf = binary.BigEndian.AppendUint32(buf, 0xFFFFFFFF) // length -1
			continue
		}
		buf = put(buf, v)
	}
	return buf
}

// arrayHeader appends the header of a one-dimensional array of n elements
// of type elem, numbered from 1 (an empty one too, as pgx sends it).
func arrayHeader(buf []byte, elem uint32, n int, nulls bool) []byte {
	flags := uint32(0)
	if nulls {
		flags = 1
	}
	buf = binary.BigEndian.AppendUint32(buf, 1)
	buf = binary.BigEndian.AppendUint32(buf, flags)
	buf = binary.BigEndian.AppendUint32(buf, elem)
	buf = binary.BigEndian.AppendUint32(buf, uint32(n))
	return binary.BigEndian.AppendUint32(buf, 1)
}

// Each element: its length in bytes, then the value.

func appendText(buf []byte, s string) []byte {
	buf = binary.BigEndian.AppendUint32(buf, uint32(len(s)))
	return append(buf, s...)
}

func appendInt8(buf []byte, n int64) []byte {
	buf = binary.BigEndian.AppendUint32(buf, 8)
	return binary.BigEndian.AppendUint64(buf, uint64(n))
}

func appendBool(buf []byte, b bool) []byte {
	buf = binary.BigEndian.AppendUint32(buf, 1)
	if b {
		return append(buf, 1)
	}
	return append(buf, 0)
}

// appendTimestamptz writes t as microseconds since Postgres's epoch.
func appendTimestamptz(buf []byte, t time.Time) []byte {
	return appendInt8(buf, t.Unix()*1_000_000+int64(t.Nanosecond())/1000-microsecondsToY2K)
}
