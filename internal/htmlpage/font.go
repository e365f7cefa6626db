package htmlpage

import (
	"encoding/base64"

	"codeberg.org/go-fonts/liberation/liberationsansregular"
)

// fontFace gives the page the font gonum measured its figures' text in.
// The inline SVGs name Liberation Sans; where a reader's machine lacks it
// the browser substitutes a wider face and legends overflow their strip,
// so the page carries the font itself (about 550 KB), as data, once.
var fontFace = `@font-face { font-family: "Liberation Sans"; src: url(data:font/ttf;base64,` +
	base64.StdEncoding.EncodeToString(liberationsansregular.TTF) + `) format("truetype"); }`
