package rank

import "github.com/langspec/langspec/internal/text/ftsquery"

// related maps words programmers use for a thing to the words language
// specifications use for it: a paraphrase in one's own words shares few
// words with the section that answers it ("shut a chan" is closing a
// channel, "a dynamic array" is a slice or a vector). It is general
// programming vocabulary, written once for every language and never from a
// gold case; the related channel searches these words beside the query's
// own, with less weight than the words that were typed.
var related = map[string][]string{
	"behaviour":    {"method"},
	"behavior":     {"method"},
	"shut":         {"close", "closed"},
	"chan":         {"channel"},
	"dynamic":      {"slice", "vec"},
	"growable":     {"slice", "vec"},
	"vector":       {"slice", "vec"},
	"kind":         {"type"},
	"kinds":        {"types"},
	"cast":         {"conversion", "cast"},
	"casting":      {"conversion", "cast"},
	"convert":      {"conversion"},
	"converting":   {"conversion"},
	"turning":      {"conversion"},
	"record":       {"struct"},
	"records":      {"struct"},
	"loop":         {"for", "loop", "while"},
	"loops":        {"for", "loop", "while"},
	"jump":         {"break", "goto", "continue", "label"},
	"nickname":     {"alias"},
	"rename":       {"alias"},
	"function":     {"func", "fn", "def"},
	"functions":    {"func", "fn", "def"},
	"names":        {"identifiers"},
	"name":         {"identifier"},
	"text":         {"string"},
	"character":    {"rune", "char"},
	"characters":   {"rune", "char"},
	"letter":       {"rune", "char"},
	"crash":        {"panic"},
	"crashes":      {"panic"},
	"exception":    {"panic", "raise", "error"},
	"exceptions":   {"panic", "raise", "error"},
	"cleanup":      {"defer", "drop", "destructor", "finally"},
	"clean":        {"defer", "drop", "destructor", "finally"},
	"destroyed":    {"drop", "destructor"},
	"freed":        {"drop", "destructor"},
	"generic":      {"type", "parameter", "parameters"},
	"generics":     {"type", "parameters"},
	"inherit":      {"embedded", "subclass", "inheritance"},
	"inheritance":  {"embedded", "subclass"},
	"lambda":       {"closure", "literal"},
	"anonymous":    {"closure", "literal"},
	"immutable":    {"const", "constant"},
	"null":         {"nil", "none"},
	"thread":       {"goroutine", "thread"},
	"threads":      {"goroutine", "thread"},
	"dictionary":   {"map", "dict"},
	"hashmap":      {"map", "dict"},
	"visible":      {"scope", "visibility"},
	"private":      {"exported", "visibility"},
	"public":       {"exported", "visibility"},
	"ternary":      {"conditional"},
	"callable":     {"call"},
	"invoked":      {"call"},
	"invoke":       {"call"},
	"wrap":         {"overflow"},
	"wraps":        {"overflow"},
	"reserved":     {"keywords"},
	"pointer":      {"reference", "pointer"},
	"iterate":      {"range", "iterator", "for"},
	"iterating":    {"range", "iterator", "for"},
	"enum":         {"enumeration", "iota"},
	"queue":        {"channel"},
	"wait":         {"select", "await", "block"},
	"concurrently": {"goroutine", "thread", "async"},
	"background":   {"goroutine", "thread", "async"},
	"import":       {"import"},
	"library":      {"package", "crate", "module"},
	"namespace":    {"package", "module"},
	"operator":     {"operator", "operators"},
	"precedence":   {"precedence"},
	"annotation":   {"attribute", "decorator", "annotation"},
	"decorator":    {"decorator"},
	"interface":    {"interface", "trait", "protocol"},
	"contract":     {"interface", "trait", "constraint"},
	"binding":      {"let", "binding"},
	"unused":       {"blank"},
	"ignore":       {"blank", "wildcard"},
	"discard":      {"blank", "must_use", "wildcard"},
	"copy":         {"copy", "clone"},
	"array":        {"array", "slice"},
	"size":         {"len", "size"},
	"length":       {"len", "length"},
}

// relatedWords returns the related words of the query's content words that
// are not in it already.
func relatedWords(words []ftsquery.Word) []ftsquery.Word {
	have := map[string]bool{}
	for _, w := range words {
		have[w.Text] = true
	}
	var out []ftsquery.Word
	for _, w := range words {
		for _, r := range related[w.Text] {
			if !have[r] {
				have[r] = true
				out = append(out, ftsquery.Word{Text: r})
			}
		}
	}
	return out
}
