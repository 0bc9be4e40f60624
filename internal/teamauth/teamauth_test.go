package teamauth

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/modelcontextprotocol/go-sdk/auth"

	"github.com/langspec/langspec/internal/catalog"
	"github.com/langspec/langspec/internal/db"
)

func TestCheckName(t *testing.T) {
	for _, tc := range []struct {
		name string
		ok   bool
	}{
		{"alice", true}, {"ci-bot_2", true}, {"", false}, {"../x", false}, {".hidden", false},
		{"a/b", false}, {"-dash", false}, {strings.Repeat("a", 64), true}, {strings.Repeat("a", 65), false}, {"名前", false},
	} {
		if err := CheckName(tc.name); (err == nil) != tc.ok {
			t.Errorf("CheckName(%q) = %v, want ok %v", tc.name, err, tc.ok)
		}
	}
}

func TestNewTokenIsRandomAndHashed(t *testing.T) {
	a, ha := NewToken()
	b, hb := NewToken()
	if a == b || ha == hb || !strings.HasPrefix(a, tokenPrefix) || len(a) < 40 {
		t.Fatalf("tokens %q %q", a, b)
	}
	if Hash(a) != ha || strings.Contains(ha, a) || len(ha) != 64 {
		t.Errorf("Hash(%q) = %q, NewToken said %q", a, Hash(a), ha)
	}
}

func TestSubjectMask(t *testing.T) {
	const own = catalog.BuiltinServer
	for _, tc := range []struct {
		tools                  []string
		server, category, tool string
		visible                bool
	}{
		{nil, own, "spec", "search_spec", true},
		{nil, "up", "up", "search_spec", true},
		{[]string{"search_spec"}, own, "spec", "search_spec", true},
		{[]string{"search_spec"}, own, "mine", "search_spec", true}, // a configured category over langspec's own tools
		{[]string{"search_spec"}, own, "spec", "get_section", false},
		// A bare name is langspec's own tool only: an upstream tool of the
		// same name, in a category that includes every tool, stays hidden.
		{[]string{"search_spec"}, "up", "up", "search_spec", false},
		{[]string{"up__search_spec"}, "up", "up", "search_spec", true},
		{[]string{"up__search_spec"}, own, "spec", "search_spec", false},
		{[]string{"docs__fetch"}, "docs", "docs", "fetch", true},
		{[]string{"docs__fetch"}, "docs", "docs", "delete", false},
		{[]string{}, own, "spec", "search_spec", false},
	} {
		m := Subject{Name: "s", Tools: tc.tools}.Mask()
		if got := m.Visible(tc.server, tc.category, tc.tool); got != tc.visible {
			t.Errorf("tools %v: %s/%s of server %s visible = %v, want %v", tc.tools, tc.category, tc.tool, tc.server, got, tc.visible)
		}
	}
	// Over a configured mask: both must let the tool through.
	configured := catalog.Mask{Deny: []string{"*/get_section"}}
	m := configured.Both(Subject{Tools: []string{"get_section", "search_spec"}}.Mask())
	if m.Visible(own, "spec", "get_section") || !m.Visible(own, "spec", "search_spec") || m.Visible(own, "spec", "list_languages") {
		t.Error("Both does not require both masks")
	}
}

// TestVerifier holds tokens against a real store: a made token passes
// with its subject and tools, a made-up or revoked one is ErrInvalidToken.
func TestVerifier(t *testing.T) {
	ctx := context.Background()
	store, err := db.OpenState(ctx, filepath.Join(t.TempDir(), "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	token, hash := NewToken()
	if err := store.CreateToken(ctx, "alice", hash, []string{"search_spec"}, false, time.Now()); err != nil {
		t.Fatal(err)
	}
	verify := Verifier(Fixed(store))
	info, err := verify(ctx, token, nil)
	if err != nil || info.UserID != "alice" {
		t.Fatalf("verify = %+v, %v", info, err)
	}
	sub, ok := FromContext(context.WithValue(ctx, struct{}{}, nil))
	if ok {
		t.Errorf("a context without auth has subject %+v", sub)
	}
	if s, _ := info.Extra[subjectKey].(Subject); s.Name != "alice" || s.Issuer != "" || s.Key() != info.UserID || len(s.Tools) != 1 {
		t.Errorf("subject = %+v", s)
	}
	for _, bad := range []string{"lsp_nope", "", token + "x"} {
		if _, err := verify(ctx, bad, nil); !errors.Is(err, auth.ErrInvalidToken) {
			t.Errorf("verify(%q) = %v, want ErrInvalidToken", bad, err)
		}
	}
	if err := store.RevokeToken(ctx, "alice", time.Now()); err != nil {
		t.Fatal(err)
	}
	if _, err := verify(ctx, token, nil); !errors.Is(err, auth.ErrInvalidToken) {
		t.Errorf("a revoked token: %v", err)
	}
}

// TestSubjectKey: a key tells subjects of the same name apart by issuer,
// and a JWT subject from a static token of its name.
func TestSubjectKey(t *testing.T) {
	for _, tc := range []struct {
		name string
		s    Subject
		key  string
	}{
		{"static token", Subject{Name: "alice"}, "alice"},
		{"JWT subject", Subject{Name: "alice", Issuer: "https://id.example"}, "https://id.example#alice"},
		{"JWT subject of another issuer", Subject{Name: "alice", Issuer: "https://other.example"}, "https://other.example#alice"},
		{"issuer with a #", Subject{Name: "alice", Issuer: "https://id.example/#x"}, "https://id.example/#x#alice"},
		{"digest name", Subject{Name: "sub-0123abcd", Issuer: "https://id.example"}, "https://id.example#sub-0123abcd"},
	} {
		if got := tc.s.Key(); got != tc.key {
			t.Errorf("%s: Key() = %q, want %q", tc.name, got, tc.key)
		}
		// The name is whatever follows the last separator: no name holds one.
		if i := strings.LastIndex(tc.key, keySeparator); tc.s.Issuer != "" && tc.key[i+len(keySeparator):] != tc.s.Name {
			t.Errorf("%s: %q does not end in its name after the last %q", tc.name, tc.key, keySeparator)
		}
	}
	if CheckName("a"+keySeparator+"b") == nil {
		t.Errorf("a token name may hold %q", keySeparator)
	}
}

// TestJWTSubjectKeyByIssuer: two issuers' tokens for the same sub give
// subjects with their Issuer set and different UserIDs, neither the bare
// name a static token of that name has.
func TestJWTSubjectKeyByIssuer(t *testing.T) {
	secret := []byte("a shared secret of enough length!")
	for _, tc := range []struct{ issuer, userID string }{
		{"https://one.example", "https://one.example#alice"},
		{"https://two.example", "https://two.example#alice"},
	} {
		v, err := JWTVerifier(context.Background(), JWTOptions{Issuer: tc.issuer, Audience: testAudience, Secret: secret})
		if err != nil {
			t.Fatal(err)
		}
		info, err := v(context.Background(), sign(t, jwt.SigningMethodHS256, "", claims(func(c jwt.MapClaims) { c["iss"] = tc.issuer }), secret), nil)
		if err != nil {
			t.Fatal(err)
		}
		if s, _ := FromInfo(info); info.UserID != tc.userID || s.Issuer != tc.issuer || s.Name != "alice" || s.Key() != info.UserID {
			t.Errorf("%s: UserID %q, subject %+v; want UserID %q", tc.issuer, info.UserID, s, tc.userID)
		}
	}
	if _, err := JWTVerifier(context.Background(), JWTOptions{Audience: testAudience, Secret: secret}); err == nil {
		t.Error("a verifier without an issuer")
	}
}
