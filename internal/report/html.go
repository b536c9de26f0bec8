package report

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
)

// htmlStyle keeps the HTML report readable without anything from the
// network.
const htmlStyle = `body{font-family:-apple-system,"Segoe UI",Helvetica,Arial,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#1f2328;line-height:1.5}
table{border-collapse:collapse;margin:1em 0;font-size:14px}th,td{border:1px solid #d0d7de;padding:4px 10px}th{background:#f6f8fa}
td{font-variant-numeric:tabular-nums}img{max-width:100%;height:auto;border:1px solid #eee}
code{background:#f6f8fa;padding:1px 4px;border-radius:4px;font-size:90%}pre{background:#f6f8fa;padding:1em;overflow:auto}
h1{border-bottom:1px solid #d0d7de}h2{border-bottom:1px solid #eee;margin-top:2em}`

var imgSrc = regexp.MustCompile(`<img src="([^"]+)"`)

// noEmail matches nothing: a node's P2P address (id@127.0.0.1:26656) is not
// an email, so GFM's autolinking of emails is off.
var noEmail = regexp.MustCompile(`$.^`)

// HTML renders Markdown as one self-contained HTML page: GitHub-flavoured
// Markdown (tables; URLs but not emails autolinked), headings with the ids
// GitHub gives them (so #anchor links work), and every image referenced by
// a path relative to dir inlined as a data: URI, so the file can be mailed
// or archived alone and viewed without network access.
func HTML(title string, md []byte, dir string) ([]byte, error) {
	var body bytes.Buffer
	gm := goldmark.New(
		goldmark.WithExtensions(extension.Table, extension.Strikethrough, extension.TaskList,
			extension.NewLinkify(extension.WithLinkifyEmailRegexp(noEmail))),
		goldmark.WithParserOptions(parser.WithAutoHeadingID()))
	if err := gm.Convert(md, &body); err != nil {
		return nil, fmt.Errorf("render markdown: %w", err)
	}
	var ierr error
	inlined := imgSrc.ReplaceAllFunc(body.Bytes(), func(m []byte) []byte {
		src := string(imgSrc.FindSubmatch(m)[1])
		if strings.Contains(src, ":") { // already a URI
			return m
		}
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(src)))
		if err != nil {
			ierr = fmt.Errorf("inline image %s: %w", src, err)
			return m
		}
		mime := "image/png"
		if strings.HasSuffix(src, ".svg") {
			mime = "image/svg+xml"
		}
		return []byte(`<img src="data:` + mime + `;base64,` + base64.StdEncoding.EncodeToString(b) + `"`)
	})
	if ierr != nil {
		return nil, ierr
	}
	var out bytes.Buffer
	fmt.Fprintf(&out, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>%s</title>\n<style>%s</style></head>\n<body>\n",
		html.EscapeString(title), htmlStyle)
	out.Write(inlined)
	out.WriteString("</body></html>\n")
	return out.Bytes(), nil
}
