package pgbatch

import (
	"bytes"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/uptrace/bun"

	"github.com/ccwallet/ccwallet/coin"
	"github.com/ccwallet/ccwallet/store"
)

// TestColumnAppendToAsGathered: every column of every table appends, from
// the rows, the bytes appendArray writes for the slice it gathers (which
// TestAppendArrayMatchesPgx holds to pgx's), with NULLs, empty strings
// and times before Postgres's epoch among the rows, and for no rows.
func TestColumnAppendToAsGathered(t *testing.T) {
	var w store.Writes
	wv := reflect.ValueOf(&w).Elem()
	for i := range wv.NumField() {
		f := wv.Field(i)
		if f.Kind() != reflect.Slice || f.Type().Elem().Kind() != reflect.Struct {
			continue
		}
		rows := reflect.MakeSlice(f.Type(), 3, 3)
		for r := range 3 {
			fill(rows.Index(r), r)
		}
		f.Set(rows)
	}
	for _, writes := range []*store.Writes{&w, {}} {
		for _, tb := range tables {
			rows := tb.rows(writes)
			for ci := range tb.cols {
				c := &tb.cols[ci]
				want, ok := appendArray([]byte("x"), c.oid, c.gather(rows))
				if !ok {
					t.Errorf("%s.%s: appendArray declines the gathered %T for oid %d", tb.name, c.name, c.gather(rows), c.oid)
					continue
				}
				if got := c.appendTo([]byte("x"), rows); !bytes.Equal(got, want) {
					t.Errorf("%s.%s, %d rows: appendTo\n%x\nwant (appendArray of the gathered)\n%x", tb.name, c.name, rows.Len(), got, want)
				}
			}
		}
	}
}

// fill sets the fields of row v, the r-th, to values of each kind a
// column takes; row 1's may-be-NULL fields are NULL (or empty).
func fill(v reflect.Value, r int) {
	for _, sf := range reflect.VisibleFields(v.Type()) {
		if !sf.IsExported() || len(sf.Index) > 1 {
			continue
		}
		f := v.FieldByIndex(sf.Index)
		amount := coin.MustParse(fmt.Sprintf("%d.0000000001", r*1000))
		at := time.Date(1999+r, 12, 31, 23, 59, 59, 123456789, time.UTC)
		n := int64(r*7 - 5)
		switch f.Interface().(type) {
		case coin.Amount:
			f.Set(reflect.ValueOf(amount))
		case *coin.Amount:
			if r != 1 {
				f.Set(reflect.ValueOf(&amount))
			}
		case time.Time:
			f.Set(reflect.ValueOf(at))
		case bun.NullTime:
			if r != 1 {
				f.Set(reflect.ValueOf(bun.NullTime{Time: at}))
			}
		case *int64:
			if r != 1 {
				f.Set(reflect.ValueOf(&n))
			}
		default:
			switch f.Kind() {
			case reflect.String:
				if r != 1 {
					f.SetString(fmt.Sprintf(`v%d "{a,b}" \ é`, r))
				}
			case reflect.Int64:
				f.SetInt(n)
			case reflect.Bool:
				f.SetBool(r%2 == 0)
			}
		}
	}
}
