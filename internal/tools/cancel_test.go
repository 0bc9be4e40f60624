package tools

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/langspec/langspec/internal/apperr"
	"github.com/langspec/langspec/internal/manual/find"
	"github.com/langspec/langspec/internal/tools/toolstest"
)

// The handlers whose work grows with the manuals or the vault stop when
// their call is cancelled, and the model reads why: unavailable, the call
// was cancelled. Each is called as the server calls it, with a call whose
// context has already ended, over folders where it has work to do.
func TestLongHandlersStopWhenCancelled(t *testing.T) {
	lib := mustOpenManuals(t)
	d := &Deps{Manuals: lib, Vault: mustOpenVault(t), Finder: toolstest.Finder(mustOpenDB(t), lib)}
	for _, p := range []string{"notes/a.md", "notes/b.md", "artifacts/chart.json"} {
		content := "a line about failover\n"
		if strings.HasSuffix(p, ".json") {
			content = `{"nodes": [{"id": "n1", "source_lines": {"path": "notes/a.md", "start": 1, "end": 1}}]}`
		}
		if _, err := d.Vault.Create(p, []byte(content)); err != nil {
			t.Fatal(err)
		}
	}
	mt, vt := bindManual(d), bindVault(d)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	calls := []struct {
		tool string
		call func() error
	}{
		{"manual_excepts", func() error {
			_, err := mt.excepts(ctx, ManualExceptsIn{ManualID: "ops-en", Query: "failover"})
			return err
		}},
		{"manual_ls", func() error { _, err := mt.ls(ctx, ManualLsIn{ManualID: "ops-en"}); return err }},
		{"manual_read", func() error {
			_, err := mt.read(ctx, ManualReadIn{ManualID: "ops-en", Path: "runbooks/db/failover.md", Scope: find.ScopeSections,
				NodeIDs: []string{"database-failover", "database-failover"}})
			return err
		}},
		{"vault_search", func() error { _, err := vt.search(ctx, VaultSearchIn{Query: "failover"}); return err }},
		{"vault_find", func() error { _, err := vt.find(ctx, VaultFindIn{Query: "failover"}); return err }},
		{"vault_scan", func() error { _, err := vt.scan(ctx, VaultScanIn{Path: "notes/a.md"}); return err }},
		{"vault_coverage", func() error { _, err := vt.coverage(ctx, VaultCoverageIn{Path: "notes/a.md"}); return err }},
		{"artifact_audit", func() error { _, err := vt.audit(ctx, ArtifactAuditIn{}); return err }},
	}
	for _, c := range calls {
		err := c.call()
		if !errors.Is(err, context.Canceled) {
			t.Errorf("%s: err %v, want context.Canceled", c.tool, err)
			continue
		}
		shown := UserError(ctx, slog.New(slog.DiscardHandler), c.tool, err)
		if apperr.CodeOf(shown) != apperr.Unavailable || !strings.Contains(shown.Error(), "the call was cancelled; hint: call the tool again") {
			t.Errorf("%s: the model reads %q", c.tool, shown)
		}
	}
}

// What the model reads of a call that ended: cancelled or out of time,
// whatever error the stopped work returned, an apperr or the store's own.
func TestUserErrorOfAnEndedCall(t *testing.T) {
	log := slog.New(slog.DiscardHandler)
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	late, stop := context.WithDeadline(context.Background(), time.Unix(0, 0))
	defer stop()
	stopped := apperr.New(apperr.Internal, "", "cannot search") // as the store reports an interrupted statement
	tests := []struct {
		ctx  context.Context
		err  error
		want string
	}{
		{cancelled, context.Canceled, "unavailable: the call was cancelled; hint: call the tool again"},
		{cancelled, stopped, "unavailable: the call was cancelled; hint: call the tool again"},
		{late, context.DeadlineExceeded, "unavailable: the call ran out of time; hint: call again with a narrower request, or a longer timeout"},
		{context.Background(), apperr.New(apperr.NotFound, "list them", "no manual"), "not_found: no manual; hint: list them"},
	}
	for _, tt := range tests {
		if got := UserError(tt.ctx, log, "tool", tt.err); got.Error() != tt.want {
			t.Errorf("UserError(%v, %v) = %q, want %q", tt.ctx.Err(), tt.err, got, tt.want)
		}
	}
}
