package views

import (
	"strconv"
	"strings"

	qr "github.com/piglig/go-qr"
)

// QR codes drawn on the server as SVG (the Receive page): no script, no
// image request, and crisp at any size.

// qrQuiet is the quiet zone around a QR code, in modules (the standard's 4).
const qrQuiet = 4

// QRCode is text as a QR code: its side in modules (with the quiet zone)
// and an SVG path of its dark modules, each row's runs merged into one
// rectangle. Medium error correction survives a scuffed screen.
type QRCode struct {
	Side int
	Path string
}

// NewQRCode encodes text.
func NewQRCode(text string) (QRCode, error) {
	code, err := qr.EncodeText(text, qr.Medium)
	if err != nil {
		return QRCode{}, err
	}
	n := code.Size()
	var b strings.Builder
	for y := 0; y < n; y++ {
		for x := 0; x < n; {
			if !code.Module(x, y) {
				x++
				continue
			}
			run := 1
			for x+run < n && code.Module(x+run, y) {
				run++
			}
			b.WriteString("M" + strconv.Itoa(x+qrQuiet) + " " + strconv.Itoa(y+qrQuiet) + "h" + strconv.Itoa(run) + "v1h-" + strconv.Itoa(run) + "z")
			x += run
		}
	}
	return QRCode{Side: n + 2*qrQuiet, Path: b.String()}, nil
}

// ViewBox is the SVG's viewBox attribute.
func (q QRCode) ViewBox() string {
	s := strconv.Itoa(q.Side)
	return "0 0 " + s + " " + s
}
