package resources

import (
	"net/url"
	"strings"

	"github.com/langspec/langspec/internal/apperr"
)

// Scheme begins every URI langspec serves.
const Scheme = "langspec://"

// The first segments that name a folder rather than a language. A language
// stored under one of these ids is shadowed only while that folder is
// configured.
const (
	hostManuals = "manuals"
	hostVault   = "vault"
)

// The URI templates, as listed. Their variables are the arguments that
// complete (Arguments).
const (
	tmplDoc            = Scheme + "{language}/{doc}"
	tmplSection        = Scheme + "{language}/{doc}/sections/{section_id}"
	tmplVersionDoc     = Scheme + "{language}/{doc}/versions/{version}"
	tmplVersionSection = Scheme + "{language}/{doc}/versions/{version}/sections/{section_id}"
	tmplDiff           = Scheme + "{language}/{doc}/diff/{from}/{to}"
	tmplManual         = Scheme + hostManuals + "/{manual_id}/{+path}"
	tmplVault          = Scheme + hostVault + "/{+path}"
)

// uriForms is the hint for a URI that is none of them.
const uriForms = "use langspec://{language}/{doc}, langspec://{language}/{doc}/sections/{section_id}, " +
	"either with /versions/{version} after {doc}, langspec://{language}/{doc}/diff/{from}/{to}, " +
	"langspec://manuals/{manual_id}/{path} or langspec://vault/{path}; " +
	"resources/list and resources/templates/list show them"

// targetKind is what a URI names.
type targetKind int

const (
	targetDoc     targetKind = iota // a document's table of contents
	targetSection                   // one section
	targetDiff                      // what changed between two versions
	targetManual                    // a manual file
	targetVault                     // a vault file
)

// target is a parsed URI, its parts percent-decoded.
type target struct {
	kind                              targetKind
	language, doc, version, sectionID string
	from, to                          string // versions of a diff
	manualID, path                    string
}

// parse reads a langspec URI. The URI is split by hand rather than by
// url.Parse: a language id is not a host name (url.Parse would read
// "go:1" as a port), and each path segment must be decoded on its own so
// that a "/" encoded in a section id stays part of the id. hasManuals and
// hasVault say whether "manuals" and "vault" name those folders.
func parse(uri string, hasManuals, hasVault bool) (target, error) {
	rest, ok := strings.CutPrefix(uri, Scheme)
	if !ok {
		return target{}, apperr.New(apperr.InvalidArgument, uriForms, "URI %s does not begin with %s", apperr.Quote(uri), Scheme)
	}
	if strings.ContainsAny(rest, "?#") {
		return target{}, apperr.New(apperr.InvalidArgument, uriForms, "URI %s has a query or fragment; langspec URIs take neither", apperr.Quote(uri))
	}
	host, tail, _ := strings.Cut(rest, "/")
	switch {
	case host == hostManuals && hasManuals:
		id, p, _ := strings.Cut(tail, "/")
		t := target{kind: targetManual}
		var err error
		if t.manualID, err = unescape(uri, id); err != nil {
			return t, err
		}
		if t.path, err = unescape(uri, p); err != nil {
			return t, err
		}
		if t.manualID == "" || t.path == "" {
			return t, apperr.New(apperr.InvalidArgument, "use langspec://manuals/{manual_id}/{path}, e.g. langspec://manuals/ops-en/README.md",
				"URI %s names no manual file", apperr.Quote(uri))
		}
		return t, nil
	case host == hostVault && hasVault:
		p, err := unescape(uri, tail)
		if err != nil {
			return target{}, err
		}
		if p == "" {
			return target{}, apperr.New(apperr.InvalidArgument, "use langspec://vault/{path}, e.g. langspec://vault/notes/plan.md",
				"URI %s names no vault file", apperr.Quote(uri))
		}
		return target{kind: targetVault, path: p}, nil
	}
	segs := strings.Split(rest, "/")
	for i, s := range segs {
		var err error
		if segs[i], err = unescape(uri, s); err != nil {
			return target{}, err
		}
		if segs[i] == "" {
			return target{}, apperr.New(apperr.InvalidArgument, uriForms, "URI %s has an empty segment", apperr.Quote(uri))
		}
	}
	t := target{language: segs[0]}
	if len(segs) >= 2 {
		t.doc = segs[1]
	}
	switch {
	case len(segs) == 2:
		t.kind = targetDoc
	case len(segs) == 4 && segs[2] == "sections":
		t.kind, t.sectionID = targetSection, segs[3]
	case len(segs) == 4 && segs[2] == "versions":
		t.kind, t.version = targetDoc, segs[3]
	case len(segs) == 5 && segs[2] == "diff":
		t.kind, t.from, t.to = targetDiff, segs[3], segs[4]
	case len(segs) == 6 && segs[2] == "versions" && segs[4] == "sections":
		t.kind, t.version, t.sectionID = targetSection, segs[3], segs[5]
	case host == hostManuals:
		return target{}, apperr.New(apperr.NotFound, "set MANUALS_ROOT (or WORKSPACE_ROOT) to a folder of manuals and restart the server", "this server has no manuals folder")
	case host == hostVault:
		return target{}, apperr.New(apperr.NotFound, "set VAULT_ROOT (or WORKSPACE_ROOT) and restart the server", "this server has no vault")
	default:
		return target{}, apperr.New(apperr.InvalidArgument, uriForms, "URI %s is not a langspec resource", apperr.Quote(uri))
	}
	return t, nil
}

func unescape(uri, s string) (string, error) {
	out, err := url.PathUnescape(s)
	if err != nil {
		return "", apperr.Wrap(err, apperr.InvalidArgument, `encode "%" as %25`, "URI %s has a malformed %%-escape", apperr.Quote(uri))
	}
	return out, nil
}

// docURI is a document's table of contents, at its latest version when
// version is "".
func docURI(language, doc, version string) string {
	u := Scheme + escape(language, false) + "/" + escape(doc, false)
	if version != "" {
		u += "/versions/" + escape(version, false)
	}
	return u
}

// sectionURI is one section, at the document's latest version when version
// is "".
func sectionURI(language, doc, version, sectionID string) string {
	return docURI(language, doc, version) + "/sections/" + escape(sectionID, false)
}

func manualURI(manualID, p string) string {
	return Scheme + hostManuals + "/" + escape(manualID, false) + "/" + escape(p, true)
}

func vaultURI(p string) string { return Scheme + hostVault + "/" + escape(p, true) }

// escape percent-encodes every byte but RFC 3986's unreserved characters
// (and "/" when slash is set). That is stricter than url.PathEscape, which
// keeps ":" "@" "+" and the like: the SDK matches a URI against a template
// with a pattern that allows only unreserved characters and %-escapes in a
// {variable}, so anything else would make the URI match no template.
func escape(s string, slash bool) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
			c == '-' || c == '.' || c == '_' || c == '~' || slash && c == '/' {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&15])
	}
	return b.String()
}

// escapeRaw percent-encodes what a client may send unencoded in a URI it
// builds from a template by hand: bytes outside ASCII (a Japanese manual
// name), spaces and the few ASCII characters a URI never holds. Without
// it such a URI matches no template and the SDK answers only "Resource not
// found".
func escapeRaw(uri string) string {
	const hex = "0123456789ABCDEF"
	if !strings.HasPrefix(uri, Scheme) {
		return uri
	}
	var b strings.Builder
	for i := 0; i < len(uri); i++ {
		c := uri[i]
		if c >= 0x80 || c <= ' ' || strings.IndexByte(`"<>\^`+"`{|}", c) >= 0 {
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&15])
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}
