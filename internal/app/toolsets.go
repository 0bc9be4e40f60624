package app

import (
	"os"
	"slices"

	"github.com/langspec/langspec/internal/apperr"
	"github.com/langspec/langspec/internal/tools"
)

// Toolsets picks the tool families serve lists, from the ones requested
// (the names of tools' categories, as mcpserver.ParseToolsets returns
// them) or, for nil, from what the workspace holds:
//
//   - spec always: the store is always there;
//   - manual when the manuals folder exists;
//   - vault when the vault's place was named (--vault-root or VAULT_ROOT,
//     --workspace-root or WORKSPACE_ROOT): a folder named vault/ that
//     happens to be where the server starts gives the model no writing
//     tool — with one user-scope registration, that would be any project
//     that has one;
//   - bridge when both manual and vault are on: it copies from one into the
//     other.
//
// A toolset requested whose folder is missing is an error that says how to
// provide it, rather than a server that lists tools which cannot work.
// Errors: invalid_argument.
func (w Workspace) Toolsets(requested []string) ([]string, error) {
	manuals, vault := w.manualsErr(), w.vaultErr()
	if requested == nil {
		sets := []string{tools.CategorySpec}
		if manuals == nil {
			sets = append(sets, tools.CategoryManual)
		}
		if vault == nil {
			sets = append(sets, tools.CategoryVault)
		}
		if manuals == nil && vault == nil {
			sets = append(sets, tools.CategoryBridge)
		}
		return sets, nil
	}
	for _, set := range requested {
		var err *apperr.Error
		switch set {
		case tools.CategoryManual:
			err = manuals
		case tools.CategoryVault:
			err = vault
		case tools.CategoryBridge:
			err = firstErr(manuals, vault)
		}
		if err != nil {
			return nil, apperr.New(err.Code, err.Hint, "toolset %s: %s", set, err.Message)
		}
	}
	return slices.Clone(requested), nil
}

// manualsErr says why the manual tools cannot serve, or nil.
func (w Workspace) manualsErr() *apperr.Error {
	if isDir(w.Manuals) {
		return nil
	}
	return apperr.New(apperr.InvalidArgument,
		"create it, one subfolder per manual, or pass --manuals-root DIR (env MANUALS_ROOT) or --workspace-root DIR (env WORKSPACE_ROOT)",
		"the manuals folder %s does not exist", apperr.Quote(w.Manuals))
}

// vaultErr says why the vault tools cannot serve, or nil.
func (w Workspace) vaultErr() *apperr.Error {
	if w.VaultNamed {
		return nil
	}
	return apperr.New(apperr.InvalidArgument,
		"pass --vault-root DIR (env VAULT_ROOT) or --workspace-root DIR (env WORKSPACE_ROOT): the model writes only into a vault you name",
		"no vault is named")
}

// firstErr is the first error that is not nil.
func firstErr(errs ...*apperr.Error) *apperr.Error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

func isDir(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}
