package decode

import (
	"strings"
	"testing"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/japanese"
	xunicode "golang.org/x/text/encoding/unicode"

	"github.com/langspec/langspec/internal/apperr"
)

// manual is a line of a real shape of Japanese insurance manual, with a
// CP932-only character (①, NEC row 13) and CRLF line ends.
const manual = "# 通院特約\r\n① 美容整形は対象外です。ただし、事故による場合を除きます。\r\n"

func encode(t *testing.T, enc encoding.Encoding, s string) []byte {
	t.Helper()
	b, err := enc.NewEncoder().Bytes([]byte(s))
	if err != nil {
		t.Fatalf("encode: %v", err)
	}
	return b
}

func TestText(t *testing.T) {
	plain := strings.ReplaceAll(manual, "①", "1.") // EUC-JP and ISO-2022-JP have no ①
	tests := []struct {
		name     string
		raw      []byte
		override string
		want     string
		encoding string
	}{
		{"UTF-8", []byte(manual), "", manual, UTF8},
		{"UTF-8 with a BOM", append([]byte("\xef\xbb\xbf"), manual...), "", manual, UTF8BOM},
		{"ASCII", []byte("# Runbook\n"), "", "# Runbook\n", UTF8},
		{"UTF-16 LE with a BOM", encode(t, xunicode.UTF16(xunicode.LittleEndian, xunicode.UseBOM), manual), "", manual, UTF16LE},
		{"UTF-16 BE with a BOM", encode(t, xunicode.UTF16(xunicode.BigEndian, xunicode.UseBOM), manual), "", manual, UTF16BE},
		{"Shift_JIS (CP932)", encode(t, japanese.ShiftJIS, manual), "", manual, CP932},
		{"EUC-JP", encode(t, japanese.EUCJP, plain), "", plain, EUCJP},
		{"ISO-2022-JP", encode(t, japanese.ISO2022JP, plain), "", plain, ISO2022JP},
		{"override", encode(t, japanese.EUCJP, plain), "EUC-JP", plain, EUCJP},
		{"override by an alias", encode(t, japanese.ShiftJIS, manual), "Shift_JIS", manual, CP932},
		{"a BOM wins over an override", append([]byte("\xef\xbb\xbf"), manual...), "cp932", manual, UTF8BOM},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, enc, err := Text(tt.raw, tt.override)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want || enc != tt.encoding {
				t.Errorf("got %q as %s, want %q as %s", got, enc, tt.want, tt.encoding)
			}
		})
	}
}

func TestTextRefuses(t *testing.T) {
	tests := []struct {
		name     string
		raw      []byte
		override string
		want     string
	}{
		{"bytes of no known encoding", []byte{0x80, 0xff, 0xfe, 0x00, 0x85, 0xfd, 0xff}, "", "not UTF-8, UTF-16"},
		{"an override the bytes break", encode(t, japanese.ShiftJIS, manual), "utf-8", "not valid utf-8"},
		{"an unknown override", []byte("x"), "klingon", `unknown encoding "klingon"`},
		{"a UTF-8 BOM before bad bytes", []byte("\xef\xbb\xbf\xff"), "", "not valid utf-8-bom"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := Text(tt.raw, tt.override)
			if apperr.CodeOf(err) != apperr.InvalidArgument || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want invalid_argument with %q", err, tt.want)
			}
		})
	}
}
