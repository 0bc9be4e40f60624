package ingest

import (
	"testing"

	"github.com/langspec/langspec/internal/db"
	"github.com/langspec/langspec/internal/eval/corpusgen"
)

// BenchmarkReadMarkdownFolder reads a folder of generated Markdown
// (corpusgen's specification: 20,000 sections in files of 800 KB, as a big
// user source has them) into sections, without a store: the reading half of
// a big ingest, which runs on every core. Its B/op is the garbage the
// collector clears behind the readers; at a million sections the collector
// took 41 s of CPU, and 14 s of its 16 s of assists were charged to the
// page readers (docs/performance.md).
func BenchmarkReadMarkdownFolder(b *testing.B) {
	const sections = 20000
	dir := b.TempDir()
	if _, err := corpusgen.WriteSpec(dir, sections); err != nil {
		b.Fatal(err)
	}
	src := SourceSpec{Language: "scale", Doc: "spec", Kind: KindMarkdown,
		CanonicalURL: "https://scale.example/spec/", SourcePolicy: db.FullText}
	b.ReportAllocs()
	for b.Loop() {
		r, err := openDirReader(dir)
		if err != nil {
			b.Fatal(err)
		}
		doc, err := readMarkdown(b.Context(), src, r)
		if err != nil {
			b.Fatal(err)
		}
		if len(doc.Sections) != sections {
			b.Fatalf("%d sections, want %d", len(doc.Sections), sections)
		}
		doc.Close()
		r.Close()
	}
}
