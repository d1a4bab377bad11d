package views

import (
	"reflect"
	"sync"
)

// Names beside party IDs: Party shows a party's name where it has one.
// A view model holds each party it shows as a PartyRef; the handler that
// builds the model fills their names (FillNames, from one lookup of
// PartyRefs' IDs) before it renders the page, once.

// PartyRef is a party a page shows: its whole ID and its name ("" for
// none, or before the handler filled it in).
type PartyRef struct {
	ID   string
	Name string
}

// P is the party id, its name not yet filled in.
func P[S ~string](id S) PartyRef { return PartyRef{ID: string(id)} }

// PartyRefs returns every PartyRef in the view model m points to (in its
// fields, embedded structs, pointers, slices and arrays), so that a
// handler can look their names up at once and set them.
func PartyRefs(m any) []*PartyRef {
	v := reflect.ValueOf(m)
	if v.Kind() != reflect.Pointer || v.IsNil() {
		panic("views.PartyRefs: want a pointer to a view model")
	}
	var refs []*PartyRef
	collectRefs(v.Elem(), &refs)
	return refs
}

// FillNames sets the name of every PartyRef in the view model m points to
// that names (party ID to name) has.
func FillNames(m any, names map[string]string) {
	for _, r := range PartyRefs(m) {
		r.Name = names[r.ID]
	}
}

var partyRefType = reflect.TypeFor[PartyRef]()

// holdsRefs caches, per type, whether a value of it can hold a PartyRef.
var holdsRefs sync.Map // reflect.Type -> bool

func canHoldRefs(t reflect.Type) bool {
	if b, ok := holdsRefs.Load(t); ok {
		return b.(bool)
	}
	holdsRefs.Store(t, false) // a type that refers to itself
	b := false
	switch t.Kind() {
	case reflect.Struct:
		if t == partyRefType {
			b = true
			break
		}
		for i := range t.NumField() {
			if f := t.Field(i); f.IsExported() && canHoldRefs(f.Type) {
				b = true
				break
			}
		}
	case reflect.Pointer, reflect.Slice, reflect.Array:
		b = canHoldRefs(t.Elem())
	}
	holdsRefs.Store(t, b)
	return b
}

func collectRefs(v reflect.Value, refs *[]*PartyRef) {
	if !canHoldRefs(v.Type()) {
		return
	}
	switch v.Kind() {
	case reflect.Struct:
		if v.Type() == partyRefType {
			if r := v.Addr().Interface().(*PartyRef); r.ID != "" {
				*refs = append(*refs, r)
			}
			return
		}
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				collectRefs(v.Field(i), refs)
			}
		}
	case reflect.Pointer:
		if !v.IsNil() {
			collectRefs(v.Elem(), refs)
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			collectRefs(v.Index(i), refs)
		}
	}
}
