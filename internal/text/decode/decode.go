// Package decode turns the bytes of a text file people made — on Windows,
// on a Mac, copied through zip archives and shared drives — into UTF-8
// without a byte order mark, once, at the door: nothing further in reads raw
// bytes. It knows UTF-8 (with or without a BOM), UTF-16 LE/BE with a BOM,
// and the Japanese encodings still common in manuals: Shift_JIS as Windows
// writes it (CP932), EUC-JP and ISO-2022-JP.
//
// Detection is by rule, not by a statistical detector: a BOM decides; else
// ISO-2022-JP's escape sequences; else text that is valid UTF-8 is UTF-8
// (every ASCII file is); else each Japanese encoding is tried strictly
// and the one that decodes without a single invalid sequence, and reads most
// like Japanese, wins. A statistical detector would guess among dozens of
// encodings for short files; the rule above only ever chooses among the
// encodings people actually hand langspec, and says so when none fits.
package decode

import (
	"bytes"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/japanese"
	xunicode "golang.org/x/text/encoding/unicode"

	"github.com/langspec/langspec/internal/apperr"
)

// Encoding names, as reported and as accepted in an override.
const (
	UTF8      = "utf-8"
	UTF8BOM   = "utf-8-bom"
	UTF16LE   = "utf-16le"
	UTF16BE   = "utf-16be"
	CP932     = "cp932" // Shift_JIS as Windows writes it
	EUCJP     = "euc-jp"
	ISO2022JP = "iso-2022-jp"
)

// aliases maps the names people write in a config to an Encoding name.
var aliases = map[string]string{
	"utf-8": UTF8, "utf8": UTF8, "utf-8-bom": UTF8BOM, "utf-16le": UTF16LE, "utf-16be": UTF16BE,
	"cp932": CP932, "shift_jis": CP932, "shift-jis": CP932, "sjis": CP932, "windows-31j": CP932, "ms932": CP932,
	"euc-jp": EUCJP, "eucjp": EUCJP, "iso-2022-jp": ISO2022JP, "jis": ISO2022JP,
}

// Names lists the encodings an override may name.
func Names() []string { return []string{UTF8, UTF16LE, UTF16BE, CP932, EUCJP, ISO2022JP} }

// Canonical returns the Encoding name for a name a user wrote ("Shift_JIS",
// "sjis", "UTF8"…). Errors: invalid_argument naming the encodings known.
func Canonical(name string) (string, error) {
	if c, ok := aliases[strings.ToLower(strings.TrimSpace(name))]; ok {
		return c, nil
	}
	return "", apperr.New(apperr.InvalidArgument, "use one of "+strings.Join(Names(), ", "),
		"unknown encoding %s", apperr.Quote(name))
}

// Text decodes b. override, when not empty, is an Encoding name (see
// Canonical) that skips detection (a BOM still wins over it: a BOM cannot be
// wrong about itself). It returns the text as UTF-8 with no BOM and the
// encoding it was read in. Line ends are left as they are; the parsers read
// "\r\n", "\r" and "\n" alike.
//
// Errors: invalid_argument when the bytes are in none of the encodings
// above, or not in the override's, naming what was tried.
func Text(b []byte, override string) (string, string, error) {
	switch {
	case bytes.HasPrefix(b, []byte("\xef\xbb\xbf")):
		return checkedUTF8(b[3:], UTF8BOM)
	case bytes.HasPrefix(b, []byte("\xff\xfe")):
		return strict(xunicode.UTF16(xunicode.LittleEndian, xunicode.ExpectBOM), b, UTF16LE)
	case bytes.HasPrefix(b, []byte("\xfe\xff")):
		return strict(xunicode.UTF16(xunicode.BigEndian, xunicode.ExpectBOM), b, UTF16BE)
	}
	if override != "" {
		name, err := Canonical(override)
		if err != nil {
			return "", "", err
		}
		return byName(b, name)
	}
	// ISO-2022-JP is 7-bit, so valid UTF-8 too: its escape sequences
	// decide first.
	if bytes.Contains(b, []byte("\x1b$B")) || bytes.Contains(b, []byte("\x1b$@")) {
		return strict(japanese.ISO2022JP, b, ISO2022JP)
	}
	if utf8.Valid(b) {
		return string(b), UTF8, nil
	}
	best, bestName, bestScore := "", "", 0
	for _, c := range []struct {
		name string
		enc  encoding.Encoding
	}{{CP932, japanese.ShiftJIS}, {EUCJP, japanese.EUCJP}} {
		text, _, err := strict(c.enc, b, c.name)
		if err != nil {
			continue
		}
		if s := japaneseScore(text); bestName == "" || s > bestScore {
			best, bestName, bestScore = text, c.name, s
		}
	}
	if bestName == "" {
		return "", "", apperr.New(apperr.InvalidArgument,
			`save the file as UTF-8, or name its encoding in langspec.json ("encoding")`,
			"the bytes are not UTF-8, UTF-16 with a BOM, Shift_JIS (CP932), EUC-JP or ISO-2022-JP")
	}
	return best, bestName, nil
}

// byName decodes b in the named encoding, strictly.
func byName(b []byte, name string) (string, string, error) {
	switch name {
	case UTF8, UTF8BOM:
		return checkedUTF8(b, name)
	case UTF16LE:
		return strict(xunicode.UTF16(xunicode.LittleEndian, xunicode.IgnoreBOM), b, name)
	case UTF16BE:
		return strict(xunicode.UTF16(xunicode.BigEndian, xunicode.IgnoreBOM), b, name)
	case CP932:
		return strict(japanese.ShiftJIS, b, name)
	case EUCJP:
		return strict(japanese.EUCJP, b, name)
	}
	return strict(japanese.ISO2022JP, b, name)
}

func checkedUTF8(b []byte, name string) (string, string, error) {
	if !utf8.Valid(b) {
		return "", "", apperr.New(apperr.InvalidArgument, "save the file as UTF-8 again, or name its real encoding",
			"the bytes are not valid %s", name)
	}
	return string(b), name, nil
}

// strict decodes b and refuses a result holding U+FFFD that b did not hold
// as UTF-8: the x/text decoders replace what they cannot read instead of
// failing, and one replaced character means the guess was wrong.
func strict(enc encoding.Encoding, b []byte, name string) (string, string, error) {
	out, err := enc.NewDecoder().Bytes(b)
	if err != nil || bytes.ContainsRune(out, utf8.RuneError) {
		return "", "", apperr.New(apperr.InvalidArgument, "name the file's real encoding in langspec.json (\"encoding\")",
			"the bytes are not valid %s", name)
	}
	s := string(out)
	return strings.TrimPrefix(s, "\ufeff"), name, nil
}

// japaneseScore is how much text reads like Japanese: kana and kanji count
// for it, half-width katakana (what EUC-JP bytes become when read as
// Shift_JIS) and control characters against it.
func japaneseScore(text string) int {
	score := 0
	for _, r := range text {
		switch {
		case r >= 0xFF61 && r <= 0xFF9F: // half-width katakana
			score -= 3
		case unicode.In(r, unicode.Hiragana, unicode.Katakana, unicode.Han):
			score += 2
		case r < 0x20 && r != '\n' && r != '\r' && r != '\t':
			score -= 5
		}
	}
	return score
}
