package main

import (
	"errors"
	"strings"
	"testing"
)

// TestWithHome: on Windows HOME is unset and the home is USERPROFILE,
// which os.UserHomeDir reads; langspec's default places then live there
// rather than failing for want of a home.
func TestWithHome(t *testing.T) {
	windows := func(key string) string {
		return map[string]string{"USERPROFILE": `C:\Users\alice`, "APPDATA": `C:\Users\alice\AppData\Roaming`}[key]
	}
	getenv := withHome(windows, func() (string, error) { return windows("USERPROFILE"), nil })
	if got := getenv("HOME"); got != `C:\Users\alice` {
		t.Errorf("HOME = %q, want USERPROFILE's", got)
	}
	if got := getenv("APPDATA"); got != `C:\Users\alice\AppData\Roaming` {
		t.Errorf("other variables change: APPDATA = %q", got)
	}
	if p, err := defaultDBPath(getenv); err != nil || !strings.HasPrefix(p, `C:\Users\alice`) {
		t.Errorf("default database %q, %v; want it under the home", p, err)
	}

	// A HOME that is set wins, as on Linux and macOS.
	unix := withHome(func(key string) string { return map[string]string{"HOME": "/home/alice"}[key] },
		func() (string, error) { t.Error("asked the system with HOME set"); return "", nil })
	if got := unix("HOME"); got != "/home/alice" {
		t.Errorf("HOME = %q, want /home/alice", got)
	}

	// No home anywhere: the error that asks for --db, as before.
	none := withHome(func(string) string { return "" }, func() (string, error) { return "", errors.New("no home") })
	if _, err := defaultDBPath(none); err == nil || !strings.Contains(err.Error(), "--db") {
		t.Errorf("no home: %v, want a hint to pass --db", err)
	}
}
