package vault

import (
	"path"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/langspec/langspec/internal/apperr"
	"github.com/langspec/langspec/internal/rootpath"
)

const (
	// maxPathBytes bounds a user path before normalisation (rootpath.MaxBytes).
	maxPathBytes = rootpath.MaxBytes
	// maxSegmentBytes is NAME_MAX on Linux, macOS and NTFS (in UTF-16 units
	// there, which 255 bytes never exceeds).
	maxSegmentBytes = 255
	// reservedPrefix marks the vault's own files. No name may start with it
	// (in any case), so a model can neither collide with nor read them, and
	// List hides them.
	reservedPrefix = ".langspec-"
	// tempPrefix marks a write in flight (see writeTemp); one left by a
	// process that died is swept by Open (sweepTemps).
	tempPrefix = reservedPrefix + "tmp-"
	// lockName is the lock file in .system/ that writers in every process
	// lock (see lock.go). It is never removed: a process holding a lock on a
	// removed file would exclude no one who opened the new one.
	lockName = reservedPrefix + "lock"

	artifactsDir = "artifacts"
	dailyDir     = "daily"
	// systemDir holds langspec's own state (coverage, find statistics). The
	// model may read it but not write it: Vault's writes refuse it, and
	// langspec writes it through System or its own files.
	systemDir = ".system"
)

// topFolders are the folders the vault manages. Their names are canonical in
// lower case: "Notes/x.md" means "notes/x.md" on every platform, so a
// case-sensitive file system does not grow a second "Notes" beside "notes".
var topFolders = [...]string{artifactsDir, "drafts", "notes", systemDir}

// policy is the vault's use of the shared path policy: its codes and hints,
// and checkSegment as the rule for each name.
var policy = rootpath.Policy{
	Folder:      "the vault",
	Outside:     apperr.PathOutsideVault,
	Invalid:     apperr.InvalidPath,
	Example:     "notes/todo.md",
	Hint:        `use a path relative to the vault root with "/" between names, such as notes/todo.md; no leading "/", drive letter, ".." or symbolic link`,
	SymlinkHint: "the vault does not follow symbolic links; use the path of the real file",
	LongHint:    "use a path of at most " + strconv.Itoa(maxPathBytes) + " bytes",
	ControlHint: "remove control characters (newline, tab, NUL…) from the name",
	Segment:     checkSegment,
	// NFC, so that "café" typed composed and pasted decomposed (as macOS
	// file names often are) is one file, not two that look the same. NFC,
	// not NFKC: compatibility forms such as fullwidth letters are refused
	// by checkSegment instead of silently becoming another name.
	Normalize:     norm.NFC.String,
	BackslashHint: `use "/" between names, such as notes/todo.md; "\" is not a separator in the vault, nor part of a name`,
	TildeHint:     "~ is not your home folder here: use a path relative to the vault root, such as notes/todo.md",
}

// Clean validates a user path and returns its canonical form: relative,
// "/"-separated, in Unicode NFC, with no empty or "." segments and with the
// managed folder names (artifacts, drafts, notes, .system, artifacts/daily)
// in lower case. The vault root itself ("", ".") is refused: file
// operations need a name.
//
// Errors: path_outside_vault for absolute, drive-letter and UNC paths and any
// ".." segment, even one that would stay inside (no resolution is attempted,
// so there is nothing to get wrong); invalid_path for everything else
// (empty, too long, characters outside the allowed set, reserved names, a
// "\" anywhere, a first name starting with "~").
func Clean(p string) (string, error) {
	return cleanPath(p, false)
}

// cleanPath is Clean; allowRoot lets List name the vault root as "" or ".".
func cleanPath(p string, allowRoot bool) (string, error) {
	split := policy.File
	if allowRoot {
		split = policy.Split
	}
	segs, err := split(p)
	if err != nil || len(segs) == 0 {
		return "", err
	}
	for _, top := range topFolders {
		if strings.EqualFold(segs[0], top) {
			segs[0] = top
		}
	}
	if len(segs) > 1 && segs[0] == artifactsDir && strings.EqualFold(segs[1], dailyDir) {
		segs[1] = dailyDir
	}
	return strings.Join(segs, "/"), nil
}

// checkSegment validates one name between separators; p is the whole user
// path, for the message.
func checkSegment(p, s string) error {
	if len(s) > maxSegmentBytes {
		return apperr.New(apperr.InvalidPath, "use names of at most "+strconv.Itoa(maxSegmentBytes)+" bytes",
			"path %s has a %d-byte name", apperr.Quote(p), len(s))
	}
	for _, r := range s {
		if !allowedRune(r) {
			return apperr.New(apperr.InvalidPath,
				`use letters, digits, spaces and ASCII punctuation other than < > : " | ? *`,
				"path %s contains character U+%04X, which is not allowed in a name", apperr.Quote(p), r)
		}
	}
	// Windows strips trailing dots and spaces, so "x.md." and "x.md " alias
	// "x.md"; a leading space is allowed there but only ever a mistake.
	if last := s[len(s)-1]; last == '.' || last == ' ' || s[0] == ' ' {
		return apperr.New(apperr.InvalidPath, "remove leading spaces and trailing dots or spaces from names",
			"path %s has a name %s that starts with a space or ends with a dot or space", apperr.Quote(p), apperr.Quote(s))
	}
	if len(s) >= len(reservedPrefix) && strings.EqualFold(s[:len(reservedPrefix)], reservedPrefix) {
		return apperr.New(apperr.InvalidPath, "choose a name that does not start with "+reservedPrefix,
			"path %s uses a name reserved for the vault's own files", apperr.Quote(p))
	}
	if isReservedName(s) {
		return apperr.New(apperr.InvalidPath, "choose another name; CON, PRN, AUX, NUL, COM0-9 and LPT0-9 are device names on Windows",
			"path %s uses the reserved device name %s", apperr.Quote(p), apperr.Quote(s))
	}
	return nil
}

// allowedRune is an allow-list rather than a deny-list of look-alikes: ASCII
// printables minus the Windows-forbidden <>:"|?* (":" also stops drive
// letters and NTFS alternate streams), and beyond ASCII only letters, marks
// and decimal digits. That leaves out every look-alike separator and dot
// (∕ ⁄ ／ ⧸ ＼ ․ ． …: all punctuation or symbols), non-ASCII spaces, format
// characters such as bidi controls and zero-width joiners (which HFS+
// ignored), and default-ignorable letters and marks such as U+3164 and
// variation selectors. Fullwidth forms and presentation ligatures are letters
// that some systems fold to ASCII ("ａrtifacts", "ﬁ"), so they are out too.
func allowedRune(r rune) bool {
	if r < utf8.RuneSelf {
		return r >= 0x20 && r < 0x7f && !strings.ContainsRune(`<>:"|?*/\`, r)
	}
	switch {
	case r >= 0xFB00 && r <= 0xFB4F: // Alphabetic Presentation Forms (ligatures)
		return false
	case r >= 0xFF00 && r <= 0xFFEF: // Halfwidth and Fullwidth Forms
		return false
	case unicode.Is(unicode.Other_Default_Ignorable_Code_Point, r),
		unicode.Is(unicode.Variation_Selector, r),
		r == 0x034F: // combining grapheme joiner: a default-ignorable mark
		return false
	}
	return unicode.IsLetter(r) || unicode.IsMark(r) || unicode.IsDigit(r)
}

// isReservedName reports Windows device names, which Windows treats as the
// device whatever the extension ("nul.txt") and with trailing spaces. Refused
// on every host: cheap, and the vault may be synced to Windows.
func isReservedName(s string) bool {
	stem, _, _ := strings.Cut(s, ".")
	stem = strings.TrimRight(stem, " ")
	switch strings.ToUpper(stem) {
	case "CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$", "CLOCK$":
		return true
	}
	if len(stem) == 4 {
		u := strings.ToUpper(stem[:3])
		if (u == "COM" || u == "LPT") && stem[3] >= '0' && stem[3] <= '9' {
			return true
		}
	}
	return false
}

// writeOp names a write for rules, results and the op log.
type writeOp string

const (
	opCreate    writeOp = "create"
	opOverwrite writeOp = "overwrite"
	opAppend    writeOp = "append"
	opReplace   writeOp = "replace"
)

// writer says whose write it is: the model's, through the Vault's methods
// (and so every tool), or langspec's own, through System.
type writer int

const (
	byModel writer = iota
	bySystem
)

// checkWriteRules applies the folder rules to a canonical path. Clean has
// already folded the managed folder names to lower case, so "Artifacts/Daily"
// and "artifacts//./daily" reach here as "artifacts/daily", and ".SYSTEM" as
// ".system".
func checkWriteRules(p, canon string, op writeOp, by writer) error {
	segs := strings.Split(canon, "/")
	if len(segs) == 1 {
		for _, top := range topFolders {
			if segs[0] == top {
				return apperr.New(apperr.IsADirectory, "name a file inside it, such as "+top+"/x.md",
					"path %s is a vault folder", apperr.Quote(p))
			}
		}
	}
	switch {
	case by == bySystem && segs[0] != systemDir:
		// A langspec bug, not the model's: System is for .system/ only.
		return apperr.New(apperr.Internal, "", "system write to %s, outside %s/", apperr.Quote(p), systemDir)
	case by == byModel && segs[0] == systemDir:
		// Coverage and statistics are langspec's record of what happened;
		// a model that could rewrite them could fake having read a file.
		return apperr.New(apperr.InvalidPath,
			".system/ holds langspec's own state and is read-only to tools; write under notes/, drafts/ or artifacts/",
			"%s %s: %s/ can be read but not written", op, apperr.Quote(p), systemDir)
	}
	if segs[0] != artifactsDir {
		return nil
	}
	if len(segs) >= 2 && segs[1] == dailyDir {
		if len(segs) == 2 {
			return apperr.New(apperr.IsADirectory, "name a daily log, such as artifacts/daily/2026-11-22.md",
				"path %s is the daily log folder", apperr.Quote(p))
		}
		if len(segs) > 3 || !isDailyName(segs[2]) {
			return apperr.New(apperr.InvalidPath, "daily logs are artifacts/daily/YYYY-MM-DD.md, for a real date",
				"path %s is not a daily log name", apperr.Quote(p))
		}
		if op == opOverwrite || op == opReplace {
			return apperr.New(apperr.AppendOnly, "daily logs only grow: use append to add to "+canon,
				"path %s is a daily log; %s is not allowed", apperr.Quote(p), op)
		}
		return nil
	}
	ext := path.Ext(canon)
	if !strings.EqualFold(ext, ".md") && !strings.EqualFold(ext, ".json") {
		return apperr.New(apperr.ExtensionNotAllowed, "artifacts/ holds only .md and .json files; write other files under drafts/ or notes/",
			"path %s has extension %s", apperr.Quote(p), apperr.Quote(ext))
	}
	return nil
}

// isDailyName reports "YYYY-MM-DD.md" for a date that exists. Lower-case
// ".md" only, so one date has one spelling on case-sensitive systems too.
func isDailyName(name string) bool {
	date, ok := strings.CutSuffix(name, ".md")
	if !ok || len(date) != len("2006-01-02") {
		return false
	}
	for i := 0; i < len(date); i++ {
		if i == 4 || i == 7 {
			if date[i] != '-' {
				return false
			}
		} else if date[i] < '0' || date[i] > '9' {
			return false
		}
	}
	_, err := time.Parse(time.DateOnly, date) // refuses 2026-02-30
	return err == nil
}

// searchedFiles lists the files a search of the folder dir reads (vault_find
// and vault_search alike), in path order, those matching glob when it is
// given. langspec's own state (.system/: coverage, find statistics, the
// lock) is read only when dir is in it: its bookkeeping lists every path
// read, so a search of the whole vault for a file's name or a topic would
// answer from it before the notes.
func (v *Vault) searchedFiles(dir, glob string) ([]Info, error) {
	entries, err := v.List(dir, true)
	if err != nil {
		return nil, err
	}
	canon, _ := cleanPath(dir, true) // List refused what it does not clean
	inState := canon == systemDir || strings.HasPrefix(canon, systemDir+"/")
	files := entries[:0]
	for _, e := range entries {
		if e.IsDir || !inState && strings.HasPrefix(e.Path, systemDir+"/") || glob != "" && !MatchGlob(glob, e.Path) {
			continue
		}
		files = append(files, e)
	}
	return files, nil
}
