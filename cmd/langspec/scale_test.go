package main

import (
	"bytes"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/langspec/langspec/internal/eval/corpusgen"
)

// BenchmarkScaleIngest runs the real binary, `langspec --db X --config Y
// ingest scale`, over a generated corpus of LANGSPEC_SCALE_SECTIONS
// sections (default 50,000, about 80 MB) into a new database each time, as
// a user's first ingest of a big document. It reports the wall time, the
// child's peak RSS (getrusage's ru_maxrss, which Linux gives in KiB) and
// the database's size after the process has exited: the main file plus
// any -wal left beside it, as a ratio to the Markdown written (db/text)
// and to the section bodies stored (db/body). Issue 15's goals: ≤ 15 s,
// ≤ 200 MB, ≤ 3× the text. A run takes most of a minute at full size, so:
//
//	go test ./cmd/langspec -run '^$' -bench ScaleIngest -benchtime 1x
//	LANGSPEC_SCALE_SECTIONS=5000 go test ./cmd/langspec -run '^$' -bench ScaleIngest -benchtime 1x
func BenchmarkScaleIngest(b *testing.B) {
	bin := langspecBinary(b) // skips under -short
	sections, err := corpusgen.SectionsFromEnv(os.Getenv)
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	corpusDir := filepath.Join(dir, "corpus")
	st, err := corpusgen.WriteSpec(corpusDir, sections)
	if err != nil {
		b.Fatal(err)
	}
	cfgPath := filepath.Join(dir, "langspec.json")
	if err := os.WriteFile(cfgPath, corpusgen.SpecConfig(corpusDir), 0o644); err != nil {
		b.Fatal(err)
	}
	b.Logf("corpus: %d sections in %d files, %.1f MB", st.Sections, st.Files, float64(st.Bytes)/1e6)

	var took []time.Duration
	var peakKiB int64
	var dbBytes, walBytes, bodyBytes int64
	for run := 0; b.Loop(); run++ {
		runDir := filepath.Join(dir, fmt.Sprintf("run%d", run))
		dbPath := filepath.Join(runDir, "langspec.db")
		cmd := exec.Command(bin, "--db", dbPath, "--config", cfgPath, "ingest", "scale")
		// A clean environment: no user config, cache or LANGSPEC_* setting,
		// and no PATH, so the toolchain probes fail at once instead of
		// timing a `go env` run.
		cmd.Env = []string{"HOME=" + runDir}
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		start := time.Now()
		err := cmd.Run()
		took = append(took, time.Since(start))
		if err != nil {
			b.Fatalf("%v: %v\n%s", cmd.Args, err, out.String())
		}
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			peakKiB = max(peakKiB, ru.Maxrss)
		}
		dbBytes, walBytes = fileSize(dbPath), fileSize(dbPath+"-wal")
		if run == 0 {
			b.Logf("%s", strings.TrimSpace(out.String()))
			if bodyBytes, err = storedBodyBytes(dbPath, sections); err != nil {
				b.Fatal(err)
			}
			if breakdown, err := tableSizes(dbPath); err == nil {
				b.Logf("pages by table and index (dbstat): %s", breakdown)
			} else {
				b.Logf("no per-table sizes: %v", err)
			}
		}
		// A full-size database is hundreds of MB: drop it before the next run.
		if err := os.RemoveAll(runDir); err != nil {
			b.Fatal(err)
		}
	}
	slices.Sort(took)
	total := dbBytes + walBytes
	b.ReportMetric(took[len(took)/2].Seconds(), "s")
	b.ReportMetric(float64(peakKiB)/1024, "peak-rss-MB")
	b.ReportMetric(float64(total)/1e6, "db-MB")
	b.ReportMetric(float64(walBytes)/1e6, "wal-MB")
	b.ReportMetric(float64(total)/float64(st.Bytes), "db/text")
	b.ReportMetric(float64(total)/float64(bodyBytes), "db/body")
}

// fileSize is the size of the file at path, 0 when there is none.
func fileSize(path string) int64 {
	fi, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return fi.Size()
}

// openScaleDB opens the database at path read-only, beside nothing else.
func openScaleDB(path string) (*sql.DB, error) {
	return sql.Open("sqlite", (&url.URL{Scheme: "file", Path: filepath.ToSlash(path), RawQuery: "mode=ro"}).String())
}

// storedBodyBytes is the UTF-8 size of the section bodies stored: the text
// the database holds, without headings, paths or markup. It checks that
// every generated section was stored.
func storedBodyBytes(path string, sections int) (int64, error) {
	conn, err := openScaleDB(path)
	if err != nil {
		return 0, err
	}
	defer conn.Close()
	var n int
	var body int64
	err = conn.QueryRow(`SELECT count(*), coalesce(sum(length(CAST(body AS BLOB))), 0) FROM sections`).Scan(&n, &body)
	if err == nil && n != sections {
		err = fmt.Errorf("the database holds %d sections of the %d generated", n, sections)
	}
	return body, err
}

// tableSizes lists the biggest tables and indexes by the bytes of their
// pages, from SQLite's dbstat table: where the database's size goes.
func tableSizes(path string) (string, error) {
	conn, err := openScaleDB(path)
	if err != nil {
		return "", err
	}
	defer conn.Close()
	rows, err := conn.Query(`SELECT name, sum(pgsize) FROM dbstat GROUP BY name ORDER BY 2 DESC LIMIT 12`)
	if err != nil {
		return "", err
	}
	defer rows.Close()
	var parts []string
	for rows.Next() {
		var name string
		var size int64
		if err := rows.Scan(&name, &size); err != nil {
			return "", err
		}
		parts = append(parts, fmt.Sprintf("%s %.1f MB", name, float64(size)/1e6))
	}
	return strings.Join(parts, ", "), rows.Err()
}
