package app

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/langspec/langspec/internal/apperr"
)

func TestWorkspaceToolsets(t *testing.T) {
	dir := t.TempDir()
	manuals, vault := filepath.Join(dir, "manuals"), filepath.Join(dir, "vault")
	if err := os.Mkdir(manuals, 0o755); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "missing")
	existingVault := t.TempDir()
	for _, tc := range []struct {
		name      string
		ws        Workspace
		requested []string
		want      []string
		wantErr   string // in the message and hint
	}{
		{name: "nothing there", ws: Workspace{Manuals: missing, Vault: vault}, want: []string{"spec"}},
		{name: "manuals only", ws: Workspace{Manuals: manuals, Vault: vault}, want: []string{"spec", "manual"}},
		{name: "vault named", ws: Workspace{Manuals: missing, Vault: vault, VaultNamed: true}, want: []string{"spec", "vault"}},
		// A vault/ that happens to be there is not one the user named.
		{name: "vault exists, not named", ws: Workspace{Manuals: missing, Vault: existingVault}, want: []string{"spec"}},
		{name: "everything", ws: Workspace{Manuals: manuals, Vault: vault, VaultNamed: true}, want: []string{"spec", "manual", "vault", "bridge"}},
		{name: "spec asked", ws: Workspace{Manuals: manuals, Vault: vault, VaultNamed: true}, requested: []string{"spec"}, want: []string{"spec"}},
		{name: "vault asked, none configured", ws: Workspace{Manuals: manuals, Vault: vault}, requested: []string{"spec", "vault"},
			wantErr: "toolset vault: no vault is named; hint: pass --vault-root DIR (env VAULT_ROOT)"},
		{name: "manual asked, no folder", ws: Workspace{Manuals: missing, Vault: vault}, requested: []string{"manual"},
			wantErr: "toolset manual: the manuals folder"},
		{name: "bridge asked, no manuals", ws: Workspace{Manuals: missing, Vault: vault, VaultNamed: true}, requested: []string{"bridge"},
			wantErr: "--manuals-root DIR (env MANUALS_ROOT)"},
		{name: "bridge asked, no vault", ws: Workspace{Manuals: manuals, Vault: vault}, requested: []string{"bridge"},
			wantErr: "toolset bridge: no vault is named"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.ws.Toolsets(tc.requested)
			if tc.wantErr != "" {
				// The message names the path; compare around it.
				msg := ""
				if err != nil {
					msg = strings.ReplaceAll(err.Error(), " and "+apperr.Quote(tc.ws.Vault)+" does not exist", "")
				}
				if apperr.CodeOf(err) != apperr.InvalidArgument || !strings.Contains(msg, tc.wantErr) {
					t.Errorf("error %v, want invalid_argument with %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || !slices.Equal(got, tc.want) {
				t.Errorf("Toolsets(%v) = %v, %v; want %v", tc.requested, got, err, tc.want)
			}
		})
	}
}

func TestResolveNamesTheVault(t *testing.T) {
	for _, tc := range []struct {
		flags WorkspaceFlags
		named bool
	}{
		{WorkspaceFlags{}, false},
		{WorkspaceFlags{Vault: t.TempDir()}, true},
		{WorkspaceFlags{Root: t.TempDir()}, true},
		{WorkspaceFlags{Manuals: t.TempDir()}, false},
	} {
		ws, err := tc.flags.Resolve(false)
		if err != nil || ws.VaultNamed != tc.named {
			t.Errorf("%+v: VaultNamed %v, %v; want %v", tc.flags, ws.VaultNamed, err, tc.named)
		}
	}
}
