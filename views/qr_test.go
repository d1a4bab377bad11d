package views

import (
	"image"
	"image/color"
	"regexp"
	"strconv"
	"testing"

	qr "github.com/piglig/go-qr"
)

var qrRun = regexp.MustCompile(`M(\d+) (\d+)h(\d+)v1h-(\d+)z`)

// TestQRCodeDecodes draws the SVG path's modules into an image and decodes
// it: the code holds the whole party ID.
func TestQRCodeDecodes(t *testing.T) {
	c, err := NewQRCode(testParty)
	if err != nil {
		t.Fatal(err)
	}
	const scale = 4
	img := image.NewGray(image.Rect(0, 0, c.Side*scale, c.Side*scale))
	for i := range img.Pix {
		img.Pix[i] = 255
	}
	for _, m := range qrRun.FindAllStringSubmatch(c.Path, -1) {
		x, _ := strconv.Atoi(m[1])
		y, _ := strconv.Atoi(m[2])
		n, _ := strconv.Atoi(m[3])
		for px := x * scale; px < (x+n)*scale; px++ {
			for py := y * scale; py < (y+1)*scale; py++ {
				img.Set(px, py, color.Gray{})
			}
		}
	}
	got, err := qr.Decode(img)
	if err != nil || got != testParty {
		t.Fatalf("decoded %q, %v; want %q", got, err, testParty)
	}
	if c.ViewBox() != "0 0 "+strconv.Itoa(c.Side)+" "+strconv.Itoa(c.Side) {
		t.Errorf("viewBox %q", c.ViewBox())
	}
}
