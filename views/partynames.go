package views

import (
	"bytes"
	"context"
	"io"

	"github.com/a-h/templ"
)

// Names beside party IDs: Party shows a party's name where it has one.
// A page does not gather its parties itself: RenderNamed renders it once
// to collect the party IDs it shows, asks for their names in one lookup,
// and renders it again with them, so every page gets names for one
// batched read.

// NameLookup returns the names of the parties that have one.
type NameLookup func(ctx context.Context, ids []string) (map[string]string, error)

type partyNamesKey struct{}

type partyNames struct {
	seen  map[string]bool
	names map[string]string // nil while collecting
}

// WithPartyNames makes RenderNamed look names up with lookup.
func WithPartyNames(ctx context.Context, lookup NameLookup) context.Context {
	return context.WithValue(ctx, partyNamesKey{}, lookup)
}

// partyName is id's name on this render ("" while collecting, or when it
// has none).
func partyName(ctx context.Context, id string) string {
	pn, _ := ctx.Value(partyNamesKey{}).(*partyNames)
	if pn == nil || id == "" {
		return ""
	}
	if pn.names == nil {
		pn.seen[id] = true
		return ""
	}
	return pn.names[id]
}

// RenderNamed renders c to w with the names of the parties it shows, when
// ctx has a lookup (WithPartyNames); a failed lookup shows no names.
func RenderNamed(ctx context.Context, w io.Writer, c templ.Component) error {
	lookup, _ := ctx.Value(partyNamesKey{}).(NameLookup)
	if lookup == nil {
		return c.Render(ctx, w)
	}
	pn := &partyNames{seen: map[string]bool{}}
	var buf bytes.Buffer
	if err := c.Render(context.WithValue(ctx, partyNamesKey{}, pn), &buf); err != nil {
		return err
	}
	if len(pn.seen) == 0 {
		_, err := w.Write(buf.Bytes())
		return err
	}
	ids := make([]string, 0, len(pn.seen))
	for id := range pn.seen {
		ids = append(ids, id)
	}
	names, err := lookup(ctx, ids)
	if err != nil || len(names) == 0 {
		_, err := w.Write(buf.Bytes())
		return err
	}
	pn.names = names
	return c.Render(context.WithValue(ctx, partyNamesKey{}, pn), w)
}
