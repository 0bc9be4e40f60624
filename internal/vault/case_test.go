package vault

import (
	"os"
	"testing"
)

// On macOS and Windows, "notes/Plan.md" and "notes/plan.md" are one file,
// and on Windows the in-process lock is the only lock a write takes (no
// flock: crossProcessLocks is false there). These tests play such a
// system on Linux: whatever the file system says, two spellings that
// differ only in case must share one lock, in this process and across
// processes, or two writers of the one file would each hold a lock of
// their own and interleave.

// TestCaseVariantsShareOneLock: while a writer holds the lock of one
// spelling, every other spelling of the name is locked too.
func TestCaseVariantsShareOneLock(t *testing.T) {
	e := newEnv(t, Options{})
	spellings := []string{
		"notes/Plan.md", "notes/plan.md", "notes/PLAN.MD",
		"notes/Ünïcode-Ω.md", "notes/üNÏCODE-ω.md", // beyond ASCII, as NTFS and APFS fold
		"notes/\u212a.md", "notes/k.md", // the Kelvin sign folds to k
	}
	groups := [][]string{spellings[:3], spellings[3:5], spellings[5:]}
	for _, group := range groups {
		unlock := e.v.lockFile(group[0])
		for _, other := range group[1:] {
			e.v.locksMu.Lock()
			l := e.v.locks[foldKey(other)]
			e.v.locksMu.Unlock()
			if l == nil || l.mu.TryLock() {
				t.Errorf("%q is not locked while %q is held", other, group[0])
				if l != nil {
					l.mu.Unlock()
				}
			}
			if lockSlot(other) != lockSlot(group[0]) {
				t.Errorf("%q and %q take different bytes of the cross-process lock file", other, group[0])
			}
		}
		unlock()
	}
	// Names that differ in more than case have locks of their own.
	unlock := e.v.lockFile("notes/plan.md")
	defer unlock()
	for _, other := range []string{"notes/plan.md.bak", "notes/plan-2.md", "drafts/plan.md"} {
		unlockOther := e.v.lockFile(other) // would block forever if shared
		unlockOther()
	}
	e.v.locksMu.Lock()
	defer e.v.locksMu.Unlock()
	if len(e.v.locks) != 1 {
		t.Errorf("%d locks held, want 1: a released lock is dropped from the map", len(e.v.locks))
	}
}

// TestCaseVariantsOfManagedFolders: the vault's own folders are one
// folder in any case, as they would be on macOS and Windows, so that a
// case-sensitive file system does not grow "Notes" beside "notes".
func TestCaseVariantsOfManagedFolders(t *testing.T) {
	e := newEnv(t, Options{})
	if _, err := e.v.Create("Notes/a.md", []byte("Notes/a.md\n")); err != nil {
		t.Fatal(err)
	}
	if _, err := e.v.Create("NOTES/a.md", nil); err == nil {
		t.Error("NOTES/a.md was created again beside Notes/a.md")
	}
	for _, p := range []string{"notes/a.md", "NOTES/a.md"} {
		if _, err := e.v.Append(p, []byte(p+"\n")); err != nil {
			t.Fatalf("append %s: %v", p, err)
		}
	}
	got, err := e.v.ReadFile("nOtEs/a.md")
	if err != nil {
		t.Fatal(err)
	}
	if want := "Notes/a.md\nnotes/a.md\nNOTES/a.md\n"; string(got) != want {
		t.Errorf("notes/a.md = %q, want the three appends in one file: %q", got, want)
	}
	ents, err := os.ReadDir(e.dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, ent := range ents {
		if n := ent.Name(); n != "notes" && foldKey(n) == foldKey("notes") {
			t.Errorf("the vault root has %q beside notes", n)
		}
	}
}
