package corpusgen

// specHead is the head of the specification's vocabulary, most frequent
// first: English function words, then the words of programming-language
// specifications. They are real words so that the benchmark queries ("type
// value", "pointer receiver method set interface", the typo "reciever
// methd") mean the same on the Go spec and on the generated corpus. Their
// order is their Zipf rank. "type" (20th) and "value" (36th) are placed so
// that about half the sections hold both, as on the Go spec (78 of its 165
// sections): the query "type value" then asks the same share of either
// document, and only the count of matches grows with the corpus.
var specHead = []string{
	"the", "of", "a", "is", "to", "and", "in", "that", "an", "for",
	"be", "as", "are", "expression", "it", "method", "by", "with", "or", "type",
	"not", "function", "if", "interface", "may", "on", "variable", "operand", "pointer", "slice",
	"this", "which", "field", "struct", "constant", "value", "from", "element", "receiver", "channel",
	"array", "map", "result", "string", "parameter", "argument", "must", "each", "package", "declaration",
	"statement", "any", "has", "all", "identifier", "assignment", "operator", "index", "length", "can",
	"set", "call", "defined", "untyped", "integer", "block", "scope", "other", "same", "its",
	"only", "following", "example", "case", "evaluated", "operation", "when", "conversion", "types", "values",
	"underlying", "declared", "named", "there", "than", "but", "such", "list", "no", "one",
	"composite", "literal", "body", "loop", "range", "return", "goroutine", "select", "switch", "label",
	"variables", "methods", "pointers", "slices", "expressions", "elements", "fields", "operands", "results", "parameters",
	"assignable", "comparable", "representable", "implements", "embedded", "generic", "instantiation", "constraint", "inference", "bound",
	"capacity", "address", "memory", "nil", "zero", "boolean", "numeric", "float", "complex", "rune",
	"byte", "unicode", "character", "source", "text", "token", "keyword", "semicolon", "comment", "lexical",
	"runtime", "panic", "recover", "defer", "deferred", "execution", "order", "initialization", "import", "exported",
	"qualified", "selector", "promoted", "shadowed", "terminating", "blank", "shift", "comparison", "arithmetic", "logical",
	"unary", "binary", "precedence", "overflow", "rounding", "truncated", "signed", "unsigned", "size", "alignment",
	"send", "receive", "buffered", "unbuffered", "closed", "blocking", "communication", "concurrent", "synchronization", "program",
	"implementation", "specification", "behavior", "undefined", "dynamic", "static", "compile", "error", "valid", "invalid",
	"explicit", "implicit", "anonymous", "signature", "variadic", "arguments", "assertion", "dispatch", "fallthrough", "break",
	"continue", "goto", "clause", "default", "iteration", "key", "entry", "lookup", "delete", "append",
	"copy", "make", "new", "len", "cap", "clear", "min", "max", "close", "print",
	"constants", "selectors", "statements", "declarations", "identifiers", "operators", "conversions", "literals", "blocks", "packages",
	"representation", "interpretation", "evaluation", "operations", "semantics", "syntax", "grammar", "production", "notation", "form",
	"tuple", "pair", "sequence", "stream", "buffer", "queue", "stack", "heap", "register", "frame",
	"closure", "capture", "escape", "lifetime", "ownership", "borrow", "reference", "dereference", "indirection", "alias",
	"mutable", "immutable", "shared", "exclusive", "atomic", "volatile", "ordered", "unordered", "sorted", "hashed",
	"template", "macro", "attribute", "annotation", "directive", "pragma", "module", "crate", "namespace", "visibility",
	"trait", "class", "object", "instance", "inheritance", "subtype", "supertype", "variance", "covariant", "contravariant",
	"pattern", "match", "guard", "binding", "destructuring", "refutable", "irrefutable", "exhaustive", "wildcard", "placeholder",
	"thread", "lock", "mutex", "condition", "signal", "wait", "notify", "yield", "await", "async",
}

// manualHeadEN is the English vocabulary of the generated manuals: an
// operations handbook's words, so the ops-handbook gold queries meet
// plausible distractors.
var manualHeadEN = []string{
	"the", "a", "to", "of", "and", "is", "in", "for", "on", "service",
	"incident", "deploy", "alert", "database", "team", "change", "cache", "request", "backup", "restore",
	"failover", "certificate", "latency", "error", "budget", "on-call", "page", "runbook", "cluster", "node",
	"region", "cell", "rollback", "release", "window", "policy", "access", "account", "ticket", "customer",
	"engineer", "review", "approval", "severity", "postmortem", "timeline", "dashboard", "metric", "threshold", "escalation",
	"primary", "replica", "leader", "follower", "shard", "queue", "gateway", "endpoint", "rotation", "expiry",
	"retention", "audit", "log", "secret", "vault", "key", "token", "credential", "permission", "role",
	"owner", "handover", "shift", "schedule", "holiday", "weekend", "maintenance", "outage", "degraded", "healthy",
	"traffic", "load", "capacity", "quota", "limit", "rate", "burst", "retry", "timeout", "health",
	"check", "probe", "monitor", "trace", "sample", "storage", "volume", "snapshot", "recovery", "objective",
}

// manualHeadJA are nouns of a Japanese insurance manual, and particles and
// endings that join them into sentences.
var (
	manualHeadJA = []string{
		"保険金", "契約", "請求", "手続き", "保険料", "被保険者", "建物", "家財", "火災", "地震",
		"損害", "支払", "書類", "事故", "補償", "特約", "解約", "変更", "確認", "連絡",
		"担当者", "お客さま", "代理店", "申込書", "約款", "水災", "盗難", "修理", "見積書", "写真",
		"保険期間", "保険金額", "再調達価額", "時価額", "免責金額", "通知義務", "告知義務", "名義変更", "口座振替", "返れい金",
		"罹災証明書", "鑑定人", "現地調査", "支払期限", "受付", "審査", "承認", "記録", "窓口", "電話",
	}
	jaParticles = []string{"は", "が", "を", "に", "の", "で", "と", "から", "まで", "について"}
	jaEndings   = []string{"します", "できます", "してください", "となります", "を確認します", "が必要です", "を受け付けます", "はできません"}
)

// syllables build the long tail of the vocabulary: made-up words that each
// occur a few times, as identifiers and rare terms do in a real corpus, so
// the index's vocabulary is as large as a real 80 MB document's.
var syllables = []string{
	"ba", "ce", "di", "fo", "gu", "ka", "le", "mi", "no", "pu",
	"ra", "se", "ti", "vo", "zu", "bel", "cor", "dan", "fen", "gil",
	"han", "jor", "kel", "lin", "mor", "nar", "pel", "quin", "ros", "sal",
	"tam", "ven", "wil", "xan", "yor", "zel", "tra", "plo", "stri", "gna",
}

// tailWord is the i-th made-up word: two syllables for the first 1,600,
// three after, so every i below 64,000 gets a word of its own.
func tailWord(i int) string {
	n := len(syllables)
	w := syllables[i%n] + syllables[(i/n)%n]
	if i >= n*n {
		w += syllables[(i/(n*n))%n]
	}
	return w
}

// vocabulary is head followed by tail made-up words.
func vocabulary(head []string, tail int) []string {
	out := make([]string, 0, len(head)+tail)
	out = append(out, head...)
	for i := range tail {
		out = append(out, tailWord(i))
	}
	return out
}
