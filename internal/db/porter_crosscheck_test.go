package db_test

import (
	"database/sql"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "modernc.org/sqlite"

	"github.com/langspec/langspec/internal/db"
	"github.com/langspec/langspec/internal/text/tokenize"
)

// The snippet highlighter re-tokenizes text in Go and must land on exactly the
// terms FTS5 indexed; these tests hold textmatch to what the SQLite we link
// actually does, so an SQLite upgrade that changes tokenization fails here
// rather than silently breaking highlighting.

const crosscheckTokenizer = `porter unicode61 remove_diacritics 2`

// crosscheckWords are words the Go spec lacks: accents, other scripts, case
// pairs SQLite folds unusually, porter edge cases, and length limits.
var crosscheckWords = []string{
	"café", "CAFÉ", "Ångström", "naïve", "façade", "crème brûlée", "Škoda", "Łódź",
	"Straße", "ǅemal", "Æsir", "œuvre", "Øresund", "ﬁnance", "ǖ", "Ǘ", "ḗ",
	"e\u0301te\u0301", "\u0301abc", "a\u0308\u0301b", "e\u0305x",
	"日本語のテキスト", "東京タワー", "カタカナ", "ひらがな", "中文字符", "한국어", "ｆｕｌｌｗｉｄｔｈ", "ＡＢＣ",
	"ΣΊΣΥΦΟΣ", "σίσυφος", "ς", "µ", "ſ", "ϐ", "Ꭰ", "ꭰ", "Ა", "Ǆ", "ǆ", "İstanbul", "ı",
	"йод", "Ёлка", "Привет", "ЧИТАТЬ", "مرحبا", "שלום", "हिन्दी", "ไทย", "𐐀𐐨", "𝔘𝔫𝔦𝔠𝔬𝔡𝔢", "😀smile",
	"x²", "Ⅻ", "½", "٣٤٥", "१२३", "\ue000private", "\U000F0000plane15", "\U00100000plane16", "\U0010FFFFmax",
	"caresses", "ponies", "ties", "caress", "cats", "feed", "agreed", "plastered", "bled", "motoring", "sing",
	"conflated", "troubled", "sized", "hopping", "tanned", "falling", "hissing", "fizzed", "failing", "filing",
	"happy", "sky", "relational", "conditional", "rational", "valenci", "hesitanci", "digitizer", "conformabli",
	"radicalli", "differentli", "vileli", "analogousli", "vietnamization", "predication", "operator", "feudalism",
	"decisiveness", "hopefulness", "callousness", "formaliti", "sensitiviti", "sensibiliti", "triplicate",
	"formative", "formalize", "electriciti", "electrical", "hopeful", "goodness", "revival", "allowance",
	"inference", "airliner", "gyroscopic", "adjustable", "defensible", "irritant", "replacement", "adjustment",
	"dependent", "adoption", "homologou", "communism", "activate", "angulariti", "homologous", "effective",
	"bowdlerize", "probate", "rate", "cease", "controll", "roll", "generalizations", "oscillators",
	"aed", "oing", "yed", "ying", "eyed", "syzygy", "yyyy", "by", "ay", "sses", "ies", "ss", "s", "a", "is", "as",
	"abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijkl",  // 64 bytes
	"abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijklm", // 65 bytes
	strings.Repeat("a", 61) + "ing", strings.Repeat("a", 62) + "ing",    // 64 and 65 bytes
	strings.Repeat("relational", 6) + "ness", strings.Repeat("relational", 6) + "nesses",
	strings.Repeat("é", 31) + "es", strings.Repeat("é", 33) + "ing",
	"utf8", "int64", "x86", "3rd", "1st", "2nd", "0x1F", "1e10", "123456", "v1beta1", "ing123ing",
	"hoping123", "ÉTÉS", "écoles", "ñandúes", "öffnung", "übersetzung", "mañana", "résumés",
	"Hello, world! x.(T) <-chan int interface{} a[i:j:k] m[\"key\"] f(x...) 1_000_000 0b1010 'a' `raw`",
	"snake_case camelCase PascalCase kebab-case dot.separated slash/separated",
	"sss spy ement agreement cement lying dying playing buyer running études ecoles",
	"«ÉTÉ» — naïve", "go😀lang", "x² Ⅻ ½", "İ ǅ Йй", "go1.22 and 0x1F, 1_000", "It's fine.",
}

// crosscheckInvalidUTF8 exercises SQLite's lenient UTF-8 decoder, which the Go
// side must mirror byte for byte.
var crosscheckInvalidUTF8 = []string{
	"ab\x80cd", "ab\xaacd", "\xaaone", "ab\xc3", "ab\xc3(", "\xe0\x81\x81x", "\xe0\x82\x80x",
	"x\xc3\xa9\x80\x80y", "\xf4\x90\x80\x80z", "\xed\xa0\x80s", "\xef\xbf\xbft", "\xf8\x88\x80\x80\x80u",
	"\xff\xfe", "caf\xe9", "na\xefve",
}

// crosscheckDB is a scratch FTS5 table configured like the search index, and
// the fts5vocab view that exposes what it stored, token by token.
type crosscheckDB struct {
	t  *testing.T
	db *sql.DB
}

func openCrosscheckDB(t *testing.T) *crosscheckDB {
	t.Helper()
	db, err := sql.Open("sqlite", filepath.Join(t.TempDir(), "crosscheck.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	db.SetMaxOpenConns(1)
	for _, stmt := range []string{
		`CREATE VIRTUAL TABLE w USING fts5(x, tokenize='` + crosscheckTokenizer + `')`,
		`CREATE VIRTUAL TABLE wv USING fts5vocab(w, instance)`,
	} {
		if _, err := db.Exec(stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	return &crosscheckDB{t: t, db: db}
}

// index stores docs[i] as row i+1 and returns, for each doc, the terms SQLite
// indexed, in token order.
func (c *crosscheckDB) index(docs []string) [][]string {
	c.t.Helper()
	tx, err := c.db.Begin()
	if err != nil {
		c.t.Fatal(err)
	}
	defer tx.Rollback()
	if _, err := tx.Exec(`DELETE FROM w`); err != nil {
		c.t.Fatal(err)
	}
	ins, err := tx.Prepare(`INSERT INTO w(rowid, x) VALUES(?, ?)`)
	if err != nil {
		c.t.Fatal(err)
	}
	for i, d := range docs {
		if _, err := ins.Exec(i+1, d); err != nil {
			c.t.Fatalf("insert %q: %v", d, err)
		}
	}
	rows, err := tx.Query(`SELECT doc, term FROM wv ORDER BY doc, offset`)
	if err != nil {
		c.t.Fatal(err)
	}
	defer rows.Close()
	terms := make([][]string, len(docs))
	for rows.Next() {
		var doc int
		var term []byte // []byte: terms need not be valid UTF-8
		if err := rows.Scan(&doc, &term); err != nil {
			c.t.Fatal(err)
		}
		terms[doc-1] = append(terms[doc-1], string(term))
	}
	if err := rows.Err(); err != nil {
		c.t.Fatal(err)
	}
	return terms
}

func crosscheckTexts(t *testing.T) []string {
	texts := []string{db.GoSpecHTML(t)}
	texts = append(texts, crosscheckWords...)
	return append(texts, crosscheckInvalidUTF8...)
}

// goTerm is the term textmatch predicts SQLite stores for tok.
func goTerm(text string, tok tokenize.Token) string {
	return tokenize.Stem(tokenize.Fold(text[tok.Start:tok.End]))
}

// TestPorterCrosscheckWords indexes every distinct word of the Go spec and of
// the extra lists one per row, so a mismatch names the word.
func TestPorterCrosscheckWords(t *testing.T) {
	var words []string
	seen := map[string]bool{}
	for _, text := range crosscheckTexts(t) {
		for _, tok := range tokenize.Tokenize(text) {
			raw := text[tok.Start:tok.End]
			if got := tokenize.Fold(raw); got != tok.Folded {
				t.Errorf("word %q: Fold gives %q, Tokenize gives %q", raw, got, tok.Folded)
			}
			if !seen[raw] {
				seen[raw] = true
				words = append(words, raw)
			}
		}
	}
	c := openCrosscheckDB(t)
	stored := c.index(words)
	bad := 0
	for i, raw := range words {
		want := tokenize.Stem(tokenize.Fold(raw))
		if len(stored[i]) != 1 || stored[i][0] != want {
			bad++
			if bad <= 50 {
				t.Errorf("word %q: Go produced %q, SQLite stored %q", raw, want, stored[i])
			}
		}
	}
	t.Logf("%d distinct words compared, %d mismatches", len(words), bad)
}

// TestPorterCrosscheckTexts indexes whole texts and the gaps between tokens,
// which checks token boundaries too: every gap must yield no term, and each
// text must yield exactly Go's sequence of terms.
func TestPorterCrosscheckTexts(t *testing.T) {
	texts := crosscheckTexts(t)
	var gaps []string
	seen := map[string]bool{}
	for _, text := range texts {
		prev := 0
		for _, tok := range append(tokenize.Tokenize(text), tokenize.Token{Start: len(text)}) {
			if g := text[prev:tok.Start]; g != "" && !seen[g] {
				seen[g] = true
				gaps = append(gaps, g)
			}
			prev = tok.End
		}
	}
	c := openCrosscheckDB(t)
	for i, terms := range c.index(gaps) {
		if len(terms) != 0 {
			t.Errorf("separator run %q: Go found no word, SQLite stored %q", gaps[i], terms)
		}
	}
	compareDocs(t, c, texts)
	t.Logf("%d texts and %d distinct separator runs compared", len(texts), len(gaps))
}

// TestPorterCrosscheckCodePoints sweeps code points, alone and inside a word,
// plus random byte soup, pinning the Unicode tables and the UTF-8 decoder to
// SQLite's. By default it covers the BMP and plane 1 fully and samples the
// rest, to stay fast; set TEXTMATCH_CROSSCHECK_ALL=1 (e.g. after upgrading
// SQLite) to sweep all 1.1M code points, which takes several seconds.
func TestPorterCrosscheckCodePoints(t *testing.T) {
	all := os.Getenv("TEXTMATCH_CROSSCHECK_ALL") != ""
	var docs []string
	var b strings.Builder
	n := 0
	for cp := rune(1); cp <= 0x10FFFF; cp++ {
		if 0xD800 <= cp && cp < 0xE000 {
			continue
		}
		// Planes 2 and up are CJK ideographs, private use and unassigned
		// space in long uniform runs; a stride plus each plane's last code
		// points (noncharacters) is enough there.
		if !all && cp >= 0x20000 && cp%61 != 0 && cp&0xFFFF < 0xFFFE {
			continue
		}
		// "q<c>q" puts c inside a word, where SQLite also accepts
		// diacritics; "<c>q" puts it first, where it does not. Porter leaves
		// words ending in q alone.
		b.WriteString("q")
		b.WriteRune(cp)
		b.WriteString("q ")
		if all || cp < 0x10000 {
			b.WriteRune(cp)
			b.WriteString("q ")
		}
		if n++; n%4096 == 0 {
			docs = append(docs, b.String())
			b.Reset()
		}
	}
	docs = append(docs, b.String())
	rng := rand.New(rand.NewPCG(1, 2))
	const soups = 32
	for range soups {
		soup := make([]byte, 4096)
		for i := range soup {
			// Mostly high bytes, some letters and spaces: stresses decoding.
			switch r := rng.IntN(8); {
			case r < 5:
				soup[i] = byte(0x80 + rng.IntN(0x80))
			case r < 7:
				soup[i] = "aeiouyRSTLNsingedly"[rng.IntN(19)]
			default:
				soup[i] = ' '
			}
		}
		docs = append(docs, string(soup))
	}
	compareDocs(t, openCrosscheckDB(t), docs)
	t.Logf("%d code points and %d random byte strings compared", n, soups)
}

// compareDocs checks that SQLite stores, for each doc, exactly the terms
// textmatch predicts, reporting the first divergence of each doc.
func compareDocs(t *testing.T, c *crosscheckDB, docs []string) {
	t.Helper()
	stored := c.index(docs)
	for d, doc := range docs {
		toks := tokenize.Tokenize(doc)
		got := stored[d]
		for i := 0; i < max(len(toks), len(got)); i++ {
			var want, sq string
			if i < len(toks) {
				want = goTerm(doc, toks[i])
			}
			if i < len(got) {
				sq = got[i]
			}
			if i < len(toks) && i < len(got) && want == sq {
				continue
			}
			where := "past the end of Go's tokens"
			if i < len(toks) {
				where = fmt.Sprintf("word %q at bytes [%d,%d)", doc[toks[i].Start:toks[i].End], toks[i].Start, toks[i].End)
			}
			t.Errorf("doc %d (%d Go tokens, %d SQLite terms), token %d, %s: Go produced %q, SQLite stored %q",
				d, len(toks), len(got), i, where, want, sq)
			break
		}
	}
}
