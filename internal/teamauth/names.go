package teamauth

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/langspec/langspec/internal/apperr"
	"github.com/langspec/langspec/internal/db"
)

// A subject's name becomes paths (its vault folder) and keys (its secrets,
// sessions, rate limit), so the names of the team server follow one rule,
// wherever a name is made — `langspec token create`, the management page's
// tokens form, the identity provider's subjects under auth.subjects:
//
//   - a token's name is letters, digits, - and _ (CheckName);
//   - two names that differ only in case are one name: on macOS and Windows
//     they would be one folder (with two unshared locks);
//   - a name that a configured JWT subject goes by is that subject's;
//   - a JWT subject's own things live under its issuer (Subject.Home), so a
//     token made later under the same name never reaches them.

// jwtHomes is the folder, under the vault root, of the JWT subjects' homes.
// A token's name cannot start with "_" (CheckName), so no token's home is
// ever inside it.
const jwtHomes = "_jwt"

// Home is where the subject's own things live: its vault folder under the
// vault root (slash-separated), and the subject its secrets are stored
// under. A langspec token's home is its name. A JWT subject's is under its
// issuer, "_jwt/<issuer>/<name>": a token made later with the subject's
// name, or a subject of the same name from another issuer, never shares it.
// A JWT name with capitals gets a digest of itself after its folded form,
// so that "Alice" and "alice" of one issuer are two folders on a
// case-insensitive filesystem too. "" for the anonymous subject of a server
// without auth.
func (s Subject) Home() string {
	if s.Issuer == "" {
		return s.Name
	}
	return jwtHomes + "/" + issuerFolder(s.Issuer) + "/" + foldedName(s.Name)
}

// issuerFolder is an issuer as a folder name: its host, readable in a
// listing, and a digest of the whole issuer, so that two issuers on one
// host are two folders.
func issuerFolder(issuer string) string {
	host := "issuer"
	if u, err := url.Parse(issuer); err == nil && u.Hostname() != "" {
		host = strings.Map(func(r rune) rune {
			switch {
			case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '.', r == '-':
				return r
			}
			return '_'
		}, strings.ToLower(u.Hostname()))
	}
	return host + "-" + digest(issuer, 4)
}

// foldedName is name as it may name a folder on a case-insensitive
// filesystem: as it is when it has no capitals, else folded and followed
// by a digest of the name as given ("~" cannot occur in a name).
func foldedName(name string) string {
	lower := strings.ToLower(name)
	if lower == name {
		return name
	}
	return lower + "~" + digest(name, 4)
}

func digest(s string, bytes int) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:bytes])
}

// SubjectHome reads how an admin names a subject on the command line
// (secrets, upstream logins): "" for everyone, a token's name, or "jwt:SUB"
// for the identity provider's subject SUB (its sub claim) under issuer.
// Errors: invalid_argument.
func SubjectHome(spec, issuer string) (string, error) {
	if spec == "" {
		return "", nil
	}
	if sub, ok := strings.CutPrefix(spec, "jwt:"); ok {
		if sub == "" {
			return "", apperr.New(apperr.InvalidArgument, "write jwt: and the subject's sub claim, such as jwt:auth0|1234", "%q names no subject", spec)
		}
		if issuer == "" {
			return "", apperr.New(apperr.InvalidArgument, "configure the identity provider under auth.jwt in langspec.json first",
				"%q names a JWT subject, and no identity provider is configured", spec)
		}
		return Subject{Name: subjectName(sub), Issuer: issuer}.Home(), nil
	}
	if err := CheckName(spec); err != nil {
		return "", apperr.New(apperr.InvalidArgument, "name a token (langspec token list), or a subject of the identity provider as jwt:SUB",
			"%q is not a subject", spec)
	}
	return spec, nil
}

// Tokens makes the team server's tokens under the name rule: the one place
// that decides whether a token may be made, for the command line and the
// management page alike.
type Tokens struct {
	Store *db.State
	// Configured are the identity provider's subjects (sub claims) under
	// auth.subjects: the names they go by are theirs.
	Configured []string
	// Known are langspec's own tool names, which a token's tools name bare.
	Known []string
	Now   func() time.Time
}

// Create makes a token named name, limited to tools (nil: every tool;
// langspec's own tools by name, an upstream tool as category__tool), and
// returns it: the only time it is shown. Errors: invalid_argument for a
// name against the rule, a configured subject's name, an unknown tool or
// an empty list of tools; already_exists for a name taken by a token, valid
// or revoked, in any case.
func (t Tokens) Create(ctx context.Context, name string, tools []string, admin bool) (string, error) {
	if err := CheckName(name); err != nil {
		return "", err
	}
	for _, sub := range t.Configured {
		if strings.EqualFold(ConfiguredName(sub), name) {
			return "", apperr.New(apperr.InvalidArgument, "choose another name: the two would share a vault folder and secrets",
				"the identity provider's subject %q under auth.subjects goes by the name %q already", sub, ConfiguredName(sub))
		}
	}
	tools, err := t.CheckTools(tools)
	if err != nil {
		return "", err
	}
	now := time.Now
	if t.Now != nil {
		now = t.Now
	}
	token, hash := NewToken()
	if err := t.Store.CreateToken(ctx, name, hash, tools, admin, now()); err != nil {
		return "", err
	}
	return token, nil
}

// CheckTools checks a list of tools as a token (or a configured subject)
// names them, and returns it without repeats; nil stays nil (every tool).
// A name is a tool's, never a pattern: "*__search_spec" would reach every
// upstream's search_spec. Errors: invalid_argument.
func (t Tokens) CheckTools(tools []string) ([]string, error) {
	if tools == nil {
		return nil, nil
	}
	out := []string{}
	for _, name := range tools {
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		category, tool, upstream := strings.Cut(name, "__")
		if upstream && (category == "" || tool == "" || strings.ContainsAny(name, "*?[\\")) || !upstream && !slices.Contains(t.Known, name) {
			return nil, apperr.New(apperr.InvalidArgument,
				"use langspec's tool names ("+strings.Join(slices.Sorted(slices.Values(t.Known)), ", ")+") or category__tool for an upstream tool",
				"tools: %q is not a tool", name)
		}
		if !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	if len(out) == 0 {
		return nil, apperr.New(apperr.InvalidArgument, "name at least one tool, or none at all for every tool", "the list of tools is empty")
	}
	return out, nil
}

// CheckNames refuses a configuration in which a subject of the identity
// provider (by the name it goes by here) has the name of a langspec token,
// in any case: the two would be one name in the logs and on the page, and
// the subject would be refused (Either). Errors: invalid_argument naming
// both and the way out.
func CheckNames(ctx context.Context, store *db.State, jwtSubjects []string) error {
	for _, sub := range slices.Sorted(slices.Values(jwtSubjects)) {
		name := subjectName(sub)
		taken, err := store.TokenNameTaken(ctx, name)
		if err != nil {
			return err
		}
		if taken {
			return apperr.New(apperr.InvalidArgument, "rename the subject under auth.subjects, or revoke and remake the token under another name",
				"auth.subjects names %q, and a langspec token is named %q (in some case): the two would share a name", sub, name)
		}
	}
	return nil
}

// ConfiguredName is the name a subject of the identity provider goes by
// here: for `token create`, which refuses it.
func ConfiguredName(sub string) string { return subjectName(sub) }

// OrphanSecretSubjects are the subjects of stored secrets that name no
// token (in any case) and are no JWT subject's home: secrets set for a JWT
// subject by its bare name before JWT subjects' homes were kept under their
// issuer. The server names them at start, since it can no longer tell whose
// they are.
func OrphanSecretSubjects(ctx context.Context, store *db.State) ([]string, error) {
	secrets, err := store.Secrets(ctx)
	if err != nil {
		return nil, err
	}
	orphans := map[string]bool{}
	for _, s := range secrets {
		if s.Subject == "" || strings.HasPrefix(s.Subject, jwtHomes+"/") {
			continue
		}
		taken, err := store.TokenNameTaken(ctx, s.Subject)
		if err != nil {
			return nil, err
		}
		if !taken {
			orphans[s.Subject] = true
		}
	}
	return slices.Sorted(maps.Keys(orphans)), nil
}

// errNameInUse is Either's refusal of a JWT subject whose name a token has.
func errNameInUse(name string) error {
	return fmt.Errorf("the identity provider's subject %q has the name of a langspec token, so the two would share a name; an admin renames one of them", name)
}
