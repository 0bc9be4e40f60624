package ingest

// This file reads an mdBook's chapter pages, and the table of contents
// (sidebar, toc.html or toc.js) that orders them and maps print.html's
// chapters to their pages.

import (
	"bytes"
	"context"
	"path"
	"regexp"
	"strings"

	"golang.org/x/net/html"

	"github.com/langspec/langspec/internal/apperr"
)

// readMdBookChapters reads the chapter pages the table of contents links to,
// in its order. A page that cannot be read is recorded in Document.Failed and
// the others are still read; only the entry page itself, a missing table of
// contents or a cancelled ctx stop the whole document.
func readMdBookChapters(ctx context.Context, src SourceSpec, entry string, r PageReader) (Document, error) {
	e, err := readBookEntry(ctx, r, entry)
	if err != nil {
		return Document{}, err
	}
	doc, chapters := Document{Failed: e.failed}, e.chapters
	if len(chapters) == 0 {
		return Document{}, apperr.New(apperr.InvalidArgument, "use entry print.html, or SUMMARY.md for the sources",
			"no table of contents found in or beside %s", entry)
	}
	bb := newBookBuilder(src)
	versions := map[string]int{}
	for _, ch := range chapters {
		if err := ctx.Err(); err != nil {
			return Document{}, err
		}
		body := e.page.Body
		if ch.read != path.Clean(entry) {
			p, err := r.Read(ctx, ch.read)
			if err != nil {
				if ctxErr := ctx.Err(); ctxErr != nil {
					return Document{}, ctxErr
				}
				doc.Failed = append(doc.Failed, PageFailure{Rel: ch.read, Err: err})
				continue
			}
			body = p.Body
		}
		proot, err := html.Parse(bytes.NewReader(body))
		if err != nil {
			doc.Failed = append(doc.Failed, PageFailure{Rel: ch.read, Err: err})
			continue
		}
		content := bookContent(proot)
		if v := mdBookVersion(content); v != "" {
			versions[v]++
		}
		if err := pruneBookChrome(content, src.Skip); err != nil {
			return Document{}, err
		}
		bb.startChapter(ch, true)
		bb.b.page = ch.page // links between chapter pages resolve against it
		bb.walkAll(content)
	}
	// Pages name a version only through their rules' test links; take it
	// when the pages that name one agree.
	if len(versions) == 1 {
		for v := range versions {
			doc.Version = v
		}
	}
	doc.Sections = bb.b.finish()
	return doc, nil
}

// bookTOC finds the table of contents of the book whose page at rel was
// parsed into root, in the first place mdBook versions put it: the sidebar
// inside every page (older mdBook, and toc.html itself); toc.html beside the
// page (recent mdBook's sidebar without JavaScript); the toc.js the page
// loads, which holds the same list in a string. Chapters come in order, with
// their nesting; draft chapters (no link) are not in it. A toc.html that
// cannot be read is reported as a failure only when nothing else is found.
func bookTOC(ctx context.Context, r PageReader, rel string, root *html.Node) ([]bookChapter, []PageFailure, error) {
	dir := path.Dir(rel)
	if list := findTOCList(root); list != nil {
		return tocChapters(list, rel, dir), nil, nil
	}
	var failed []PageFailure
	tocRel := path.Join(dir, "toc.html")
	if p, err := r.Read(ctx, tocRel); err == nil {
		if troot, err := html.Parse(bytes.NewReader(p.Body)); err == nil {
			if list := findTOCList(troot); list != nil {
				return tocChapters(list, tocRel, dir), nil, nil
			}
		}
	} else if ctxErr := ctx.Err(); ctxErr != nil {
		return nil, nil, ctxErr
	} else {
		failed = append(failed, PageFailure{Rel: tocRel, Err: err})
	}
	for _, js := range tocScripts(root, rel) {
		p, err := r.Read(ctx, js)
		if err != nil {
			if ctxErr := ctx.Err(); ctxErr != nil {
				return nil, nil, ctxErr
			}
			continue
		}
		if list := findTOCList(tocFromScript(p.Body)); list != nil {
			return tocChapters(list, js, dir), nil, nil
		}
	}
	return nil, failed, nil
}

// findTOCList is mdBook's chapter list, <ol class="chapter">.
func findTOCList(n *html.Node) *html.Node {
	if n == nil {
		return nil
	}
	if n.Type == html.ElementNode && n.Data == "ol" && hasAnyClass(n, []string{"chapter"}) {
		return n
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if l := findTOCList(c); l != nil {
			return l
		}
	}
	return nil
}

// tocChapters lists the chapter links under list, found on the page at from;
// depth is how many lists enclose a link inside the outermost one.
func tocChapters(list *html.Node, from, entryDir string) []bookChapter {
	var out []bookChapter
	seen := map[string]bool{}
	var visit func(n *html.Node, depth int)
	visit = func(n *html.Node, depth int) {
		if n.Type == html.ElementNode {
			switch n.Data {
			case "ol", "ul":
				if n != list {
					depth++
				}
			case "a":
				href := attr(n, "href")
				rel, ok := resolveRel(from, href)
				if !ok || href == "" || seen[rel] || !strings.HasSuffix(rel, ".html") {
					return
				}
				seen[rel] = true
				out = append(out, bookChapter{read: rel, page: relTo(entryDir, rel), title: tocTitle(n), depth: depth})
				return
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			visit(c, depth)
		}
	}
	visit(list, 0)
	return out
}

// tocTitle is a link's text without the section number mdBook puts in
// <strong> ("2.1.").
func tocTitle(a *html.Node) string {
	var b strings.Builder
	var visit func(n *html.Node)
	visit = func(n *html.Node) {
		if n.Type == html.ElementNode && n.Data == "strong" {
			return
		}
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			visit(c)
		}
	}
	visit(a)
	return strings.TrimSpace(collapseSpace(b.String()))
}

var tocScriptRE = regexp.MustCompile(`^toc(-[0-9a-f]+)?\.js$`)

// tocScripts are the toc.js scripts (toc-<hash>.js) the page at rel loads.
func tocScripts(root *html.Node, rel string) []string {
	var out []string
	var visit func(n *html.Node)
	visit = func(n *html.Node) {
		if n.Type == html.ElementNode && n.Data == "script" {
			src := attr(n, "src")
			if p, ok := resolveRel(rel, src); ok && tocScriptRE.MatchString(path.Base(p)) {
				out = append(out, p)
			}
			return
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			visit(c)
		}
	}
	visit(root)
	return out
}

var innerHTMLRE = regexp.MustCompile(`innerHTML\s*=\s*'`)

// tocFromScript parses the HTML that toc.js assigns to the sidebar
// (this.innerHTML = '<ol class="chapter">…'), a single-quoted JavaScript
// string; nil when there is none.
func tocFromScript(js []byte) *html.Node {
	loc := innerHTMLRE.FindIndex(js)
	if loc == nil {
		return nil
	}
	var b strings.Builder
	s := string(js[loc[1]:])
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\'':
			root, err := html.Parse(strings.NewReader(b.String()))
			if err != nil {
				return nil
			}
			return root
		case '\\':
			if i+1 < len(s) {
				i++
				switch s[i] {
				case 'n':
					b.WriteByte('\n')
				case 't':
					b.WriteByte('\t')
				default:
					b.WriteByte(s[i])
				}
			}
		default:
			b.WriteByte(c)
		}
	}
	return nil
}
