package config

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode/utf16"
)

// TestWindowsEditedConfig: langspec.json as Windows tools save it — CRLF
// line ends, a UTF-8 byte order mark (Notepad, PowerShell 5's Set-Content
// -Encoding UTF8), UTF-16 with a byte order mark (PowerShell 5's ">") —
// loads as the same configuration as the file with LF line ends, and a
// syntax error is placed on the same line and column.
func TestWindowsEditedConfig(t *testing.T) {
	lf, err := os.ReadFile(filepath.Join("..", "..", "fixtures", "config", "langspec.categories.json"))
	if err != nil {
		t.Fatal(err)
	}
	lf = append(lf, []byte("\n")...)
	lf = bytes.ReplaceAll(lf, []byte("\r\n"), []byte("\n"))
	lf = bytes.Replace(lf, []byte("{"), []byte(`{"sources": [`+goodSource+"],\n"), 1)
	want, err := Parse(lf, "lf.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(want.Sources) != 1 || len(want.MCPServers) == 0 || len(want.Categories) == 0 {
		t.Fatalf("the LF file parsed to %+v; want a source, servers and categories", want)
	}
	crlf := bytes.ReplaceAll(lf, []byte("\n"), []byte("\r\n"))
	for name, b := range map[string][]byte{
		"crlf":                  crlf,
		"utf-8 bom":             append([]byte("\xef\xbb\xbf"), lf...),
		"utf-8 bom, crlf":       append([]byte("\xef\xbb\xbf"), crlf...),
		"utf-16le bom, crlf":    utf16Bytes(string(crlf), false),
		"utf-16be bom, crlf":    utf16Bytes(string(crlf), true),
		"old mac cr line ends":  bytes.ReplaceAll(lf, []byte("\n"), []byte("\r")),
		"crlf, trailing crlf x": append(bytes.Clone(crlf), "\r\n\r\n"...),
	} {
		t.Run(name, func(t *testing.T) {
			got, err := Parse(b, name)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("got %+v\nwant %+v", got, want)
			}
		})
	}

	// A syntax error's line and column do not count the "\r"s.
	bad := "{\n  \"toolMask\": {},\n  \"sources\": [,]\n}\n"
	_, lfErr := Parse([]byte(bad), "x.json")
	if lfErr == nil || !strings.Contains(lfErr.Error(), "line 3, column ") {
		t.Fatalf("LF syntax error: %v, want it on line 3", lfErr)
	}
	for name, b := range map[string][]byte{
		"crlf":            []byte(strings.ReplaceAll(bad, "\n", "\r\n")),
		"utf-8 bom, crlf": []byte("\xef\xbb\xbf" + strings.ReplaceAll(bad, "\n", "\r\n")),
	} {
		if _, err := Parse(b, "x.json"); err == nil || err.Error() != lfErr.Error() {
			t.Errorf("%s syntax error: %v\nwant %v", name, err, lfErr)
		}
	}

	// A file that claims UTF-16 and is not says so, and how to fix it.
	_, err = Parse([]byte("\xff\xfe{\x00\xd8"), "odd.json")
	if err == nil || !strings.Contains(err.Error(), "odd.json") || !strings.Contains(err.Error(), "UTF-8") {
		t.Errorf("broken UTF-16: %v, want the file named and UTF-8 suggested", err)
	}
}

// utf16Bytes is s in UTF-16 with a byte order mark.
func utf16Bytes(s string, bigEndian bool) []byte {
	units := append([]uint16{0xfeff}, utf16.Encode([]rune(s))...)
	out := make([]byte, 0, 2*len(units))
	for _, u := range units {
		if bigEndian {
			out = append(out, byte(u>>8), byte(u))
		} else {
			out = append(out, byte(u), byte(u>>8))
		}
	}
	return out
}
