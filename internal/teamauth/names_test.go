package teamauth

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/langspec/langspec/internal/apperr"
	"github.com/langspec/langspec/internal/db"
)

// TestHome: a token's home is its name; a JWT subject's lies under its
// issuer, apart from any token's and from another issuer's subject of the
// same name, and two subjects whose names differ only in case never share
// a folder on a case-insensitive filesystem.
func TestHome(t *testing.T) {
	const idp, other = "https://id.example/realms/a", "https://id.example/realms/b"
	homes := map[string]string{
		"token alice":      Subject{Name: "alice"}.Home(),
		"jwt alice":        Subject{Name: "alice", Issuer: idp}.Home(),
		"jwt Alice":        Subject{Name: "Alice", Issuer: idp}.Home(),
		"jwt ALICE":        Subject{Name: "ALICE", Issuer: idp}.Home(),
		"other idp alice":  Subject{Name: "alice", Issuer: other}.Home(),
		"jwt sub-digested": Subject{Name: subjectName("auth0|1234"), Issuer: idp}.Home(),
	}
	if homes["token alice"] != "alice" {
		t.Errorf("a token's home is %q, want its name", homes["token alice"])
	}
	if got := homes["jwt alice"]; !strings.HasPrefix(got, "_jwt/id.example-") || !strings.HasSuffix(got, "/alice") {
		t.Errorf("a JWT subject's home is %q", got)
	}
	for a, ha := range homes {
		if strings.Contains(ha, "..") || strings.HasPrefix(ha, "/") || ha != filepath.ToSlash(filepath.Clean(ha)) {
			t.Errorf("%s: home %q is not a clean relative path", a, ha)
		}
		for b, hb := range homes {
			if a != b && strings.EqualFold(ha, hb) {
				t.Errorf("%s and %s share a folder on a case-insensitive filesystem: %q, %q", a, b, ha, hb)
			}
		}
	}
	if (Subject{}).Home() != "" {
		t.Error("the anonymous subject has a home")
	}
}

func TestSubjectHome(t *testing.T) {
	const idp = "https://id.example"
	for _, tc := range []struct {
		spec, issuer, want string
		code               apperr.Code
	}{
		{"", idp, "", ""},
		{"alice", "", "alice", ""},
		{"jwt:gina", idp, Subject{Name: "gina", Issuer: idp}.Home(), ""},
		{"jwt:auth0|1234", idp, Subject{Name: subjectName("auth0|1234"), Issuer: idp}.Home(), ""},
		{"jwt:gina", "", "", apperr.InvalidArgument},
		{"jwt:", idp, "", apperr.InvalidArgument},
		{"../x", idp, "", apperr.InvalidArgument},
		{"_jwt/x/gina", idp, "", apperr.InvalidArgument},
	} {
		got, err := SubjectHome(tc.spec, tc.issuer)
		if got != tc.want || apperr.CodeOf(err) != tc.code && !(tc.code == "" && err == nil) {
			t.Errorf("SubjectHome(%q, %q) = %q, %v; want %q, code %q", tc.spec, tc.issuer, got, err, tc.want, tc.code)
		}
	}
}

// TestTokensCreate holds the one rule for making a token.
func TestTokensCreate(t *testing.T) {
	ctx := context.Background()
	store, err := db.OpenState(ctx, filepath.Join(t.TempDir(), "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	rules := Tokens{Store: store, Configured: []string{"ci", "auth0|1234"}, Known: []string{"search_spec", "get_section"}, Now: time.Now}
	if _, err := rules.Create(ctx, "alice", nil, false); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		tools []string
		code  apperr.Code
		want  string
	}{
		{"bob", []string{"search_spec", " get_section", "search_spec", "up__fetch"}, "", ""},
		{"carol", nil, "", ""},
		{"ALICE", nil, apperr.AlreadyExists, "differ only in case"},
		{"alice", nil, apperr.AlreadyExists, "exists already"},
		{"CI", nil, apperr.InvalidArgument, "auth.subjects"},
		{subjectName("auth0|1234"), nil, apperr.InvalidArgument, "auth.subjects"},
		{"dave", []string{"rm_rf"}, apperr.InvalidArgument, `"rm_rf" is not a tool`},
		{"dave", []string{"__fetch"}, apperr.InvalidArgument, "is not a tool"},
		{"dave", []string{"*__search_spec"}, apperr.InvalidArgument, "is not a tool"},
		{"dave", []string{"up__*"}, apperr.InvalidArgument, "is not a tool"},
		{"dave", []string{"", " "}, apperr.InvalidArgument, "empty"},
		{"../dave", nil, apperr.InvalidArgument, "not a token name"},
	} {
		tok, err := rules.Create(ctx, tc.name, tc.tools, false)
		if apperr.CodeOf(err) != tc.code && !(tc.code == "" && err == nil) || err != nil && !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Create(%q, %q): %v; want code %q with %q", tc.name, tc.tools, err, tc.code, tc.want)
		}
		if (err == nil) != strings.HasPrefix(tok, tokenPrefix) {
			t.Errorf("Create(%q): token %q with error %v", tc.name, tok, err)
		}
	}
	list, _ := store.Tokens(ctx)
	for _, tok := range list {
		if tok.Name == "bob" && strings.Join(tok.Tools, ",") != "search_spec,get_section,up__fetch" {
			t.Errorf("bob's tools stored as %v", tok.Tools)
		}
	}
}
