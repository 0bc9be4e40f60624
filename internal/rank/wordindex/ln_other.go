//go:build !linux || mips64le

package wordindex

import "math"

// ln is the natural logarithm as modernc.org/sqlite's ln() and FTS5's
// bm25() take it on this system: its C library calls Go's math.Log here
// (modernc.org/libc's libc.go), and musl's log, ported in ln_musl.go, on
// Linux.
func ln(x float64) float64 { return math.Log(x) }
