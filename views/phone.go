package views

import (
	"context"
	"io"

	"github.com/a-h/templ"
)

// usdInParens is "(12.00 USD)": nothing between the amount and its
// parentheses (templ would put a space before the ")" on its own line)
// and no line break inside, so on a phone it wraps as one piece.
func usdInParens(exact, testid string) templ.Component {
	return templ.ComponentFunc(func(ctx context.Context, w io.Writer) error {
		if _, err := io.WriteString(w, `<span class="nowrap">(`); err != nil {
			return err
		}
		if err := USD(exact, testid).Render(ctx, w); err != nil {
			return err
		}
		_, err := io.WriteString(w, ")</span>")
		return err
	})
}
