package vault

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkVaultFind times vault_find over notes made of the fixture
// manuals (the Node.js API docs, the ops handbook and the Japanese
// insurance manual: 1.9 MB of Markdown), once and ten times over, for
// three queries: the scan of every file, and the ranking of the files
// holding a match. It reports the lines matched and the files read: a
// search whose lines pass the cap (200) reads every file all the same,
// to rank them.
//
//	go test ./internal/vault -run '^$' -bench VaultFind -benchtime 20x -benchmem
func BenchmarkVaultFind(b *testing.B) {
	queries := []string{"database failover", "Buffer.alloc", "支払いの対象外"}
	for _, copies := range []int{1, 10} {
		e := newEnv(b, Options{})
		files := 0
		for c := range copies {
			for _, m := range []string{"nodejs-en", "ops-handbook", "kasai-hoken"} {
				src := filepath.Join("..", "..", "fixtures", "manuals", m)
				err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
					if err != nil || d.IsDir() {
						return err
					}
					rel, _ := filepath.Rel(src, p)
					data, err := os.ReadFile(p)
					if err != nil {
						return err
					}
					files++
					_, err = e.v.Create(filepath.ToSlash(filepath.Join("notes", fmt.Sprint(c), m, rel)), data)
					return err
				})
				if err != nil {
					b.Fatal(err)
				}
			}
		}
		for _, q := range queries {
			b.Run(fmt.Sprintf("files=%d/%s", files, q), func(b *testing.B) {
				ctx := context.Background()
				var res FindResult
				for b.Loop() {
					var err error
					if res, err = e.v.Find(ctx, FindRequest{Query: q}); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(res.Stats.NormalizedHits+res.Stats.LooseHits), "lines")
				b.ReportMetric(float64(res.Stats.FilesScanned), "files-read")
			})
		}
	}
}
