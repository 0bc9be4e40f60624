package app

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"strings"

	"github.com/langspec/langspec/internal/apperr"
	"github.com/langspec/langspec/internal/db"
	"github.com/langspec/langspec/internal/manual/find"
)

// The manual use cases are find.Service's, the manual_* tools' own calls;
// these methods front them for `langspec manual` and `langspec ingest
// manuals` over the workspace's manuals folder, which must be there.

// manualsRootHint says how to point langspec at the manuals.
const manualsRootHint = "point at your manuals with --manuals-root DIR or MANUALS_ROOT=DIR, DIR holding one folder of .md and .json files per manual (default: WORKSPACE_ROOT/manuals, else ./manuals)"

// checkManualsRoot refuses a manuals folder that is not there: not_found,
// naming it and how to name another.
func checkManualsRoot(dir string) error {
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return apperr.New(apperr.NotFound, manualsRootHint, "no manuals folder at %s", dir)
	case err != nil:
		return apperr.Wrap(err, apperr.Unavailable, "check the folder's permissions, or "+manualsRootHint, "cannot read the manuals folder %s", dir)
	case !fi.IsDir():
		return apperr.New(apperr.InvalidArgument, manualsRootHint, "the manuals folder %s is not a folder", dir)
	}
	return nil
}

// NoManuals is the error for a manuals folder without a manual in it.
func (a *App) NoManuals() error {
	return apperr.New(apperr.NotFound, "put one folder of .md and .json files per manual in it, or "+manualsRootHint, "no manuals in %s", a.opts.Workspace.Manuals)
}

// manualService is the manual use cases over the workspace's manuals
// folder; withFinder binds manual_find's finder, which opens the store.
// Errors: the folder is missing or not a folder (checkManualsRoot).
func (a *App) manualService(ctx context.Context, withFinder bool) (*find.Service, error) {
	if err := checkManualsRoot(a.opts.Workspace.Manuals); err != nil {
		return nil, err
	}
	lib, err := a.Manuals()
	if err != nil {
		return nil, err
	}
	svc := &find.Service{Lib: lib, Notes: a.opts.Notes, Log: a.log}
	if withFinder {
		if svc.Finder, err = a.Finder(ctx); err != nil {
			return nil, err
		}
	}
	return svc, nil
}

// ManualListing is `manual list`: manual_list's answer, with the folder
// it lists and the other folders whose manuals the store holds (a manual
// is its folder and its id: several projects' manuals live in one store
// side by side).
type ManualListing struct {
	Root       string           `json:"root"`
	Manuals    []string         `json:"manuals"`
	OtherRoots []db.IndexedRoot `json:"other_roots,omitempty"`
}

// ManualList lists the manuals (manual_list), and the other manuals
// folders the store holds an index of.
func (a *App) ManualList(ctx context.Context) (ManualListing, error) {
	svc, err := a.manualService(ctx, false)
	if err != nil {
		return ManualListing{}, err
	}
	out, err := svc.List(ctx)
	if err != nil {
		return ManualListing{}, err
	}
	listing := ManualListing{Root: find.RootKey(a.opts.Workspace.Manuals), Manuals: out.Manuals}
	roots, err := a.IndexedRoots(ctx)
	if err != nil {
		return ManualListing{}, err
	}
	for _, r := range roots {
		if r.Root != listing.Root {
			listing.OtherRoots = append(listing.OtherRoots, r)
		}
	}
	return listing, nil
}

// ManualLs lists a manual's files (manual_ls).
func (a *App) ManualLs(ctx context.Context, manualID string) (find.FileList, error) {
	svc, err := a.manualService(ctx, false)
	if err != nil {
		return find.FileList{}, err
	}
	return svc.Ls(ctx, manualID)
}

// ManualToc is a manual file's headings (manual_toc).
func (a *App) ManualToc(ctx context.Context, manualID, path string) (find.Toc, error) {
	svc, err := a.manualService(ctx, false)
	if err != nil {
		return find.Toc{}, err
	}
	return svc.Toc(ctx, manualID, path)
}

// ManualRead reads a manual file, sections or a snippet (manual_read).
func (a *App) ManualRead(ctx context.Context, req find.ReadRequest) (find.ReadResult, error) {
	svc, err := a.manualService(ctx, false)
	if err != nil {
		return find.ReadResult{}, err
	}
	return svc.Read(ctx, req)
}

// ManualFound is `manual find`'s answer: manual_find's summary, and the
// first page manual_hits returns for its trace, snippets included.
type ManualFound struct {
	Summary find.Summary  `json:"summary"`
	Hits    find.HitsPage `json:"hits"`
}

// ManualFind runs manual_find and pages the first limit candidates of its
// trace (manual_hits). Errors: NoManuals when every manual is searched
// and the folder holds none; those of find.Service.
func (a *App) ManualFind(ctx context.Context, req find.Request, limit int) (ManualFound, error) {
	svc, err := a.manualService(ctx, true)
	if err != nil {
		return ManualFound{}, err
	}
	if req.ManualID == "" {
		list, err := svc.List(ctx)
		if err != nil {
			return ManualFound{}, err
		}
		if len(list.Manuals) == 0 {
			return ManualFound{}, a.NoManuals()
		}
	}
	sum, err := svc.Find(ctx, req)
	if err != nil {
		return ManualFound{}, err
	}
	page, err := svc.Hits(ctx, find.HitsRequest{TraceID: sum.TraceID, Limit: limit})
	if err != nil {
		return ManualFound{}, err
	}
	if page.Candidates == nil {
		page.Candidates = []find.Candidate{}
	}
	return ManualFound{Summary: sum, Hits: page}, nil
}

// IngestManuals indexes every manual of the folder now (what serve and
// manual_find do when a manual changed). Errors: NoManuals when nothing was
// indexed, so a script does not carry on as if the manuals were there.
func (a *App) IngestManuals(ctx context.Context) ([]ManualsReport, error) {
	if err := checkManualsRoot(a.opts.Workspace.Manuals); err != nil {
		return nil, err
	}
	index, err := a.ManualIndex(ctx)
	if err != nil {
		return nil, err
	}
	reports, err := index.RefreshAll(ctx)
	if err != nil {
		return nil, err
	}
	if len(reports) == 0 {
		return nil, a.NoManuals()
	}
	return reports, nil
}

// ManualsAround names the manuals a user may have meant to search when a
// spec search found nothing: those the store has an index of (ingest
// manuals, manual find, serve), else the folders of MANUALS_ROOT. None when
// there are none, or on any error: it only adds a hint.
func (a *App) ManualsAround(ctx context.Context) []string {
	if ids, err := a.IndexedManuals(ctx); err == nil && len(ids) > 0 {
		return ids
	}
	root := a.opts.getenv()("MANUALS_ROOT")
	if root == "" {
		return nil
	}
	ents, err := os.ReadDir(root)
	if err != nil {
		return nil
	}
	var ids []string
	for _, e := range ents {
		if e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
			ids = append(ids, e.Name())
		}
	}
	return ids
}
