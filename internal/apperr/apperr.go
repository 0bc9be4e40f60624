// Package apperr is the one error type users and models see: a code a program
// can branch on, a message that says what was wrong, and a hint that names the
// next step.
package apperr

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Code classifies an error for exit codes and MCP error results.
type Code string

const (
	InvalidArgument Code = "invalid_argument"
	NotFound        Code = "not_found"
	Unavailable     Code = "unavailable"      // a source could not be read or fetched
	CorruptDatabase Code = "corrupt_database" // the --db file is not a usable langspec store
	Internal        Code = "internal"

	// Vault codes (internal/vault). Each names one rule a file operation broke,
	// so a model can tell "fix the path" from "the file is not there".
	PathOutsideVault    Code = "path_outside_vault"    // absolute, drive or UNC path, a ".." segment, or a symbolic link
	InvalidPath         Code = "invalid_path"          // a name the vault will not store: bad characters, length, reserved name
	AlreadyExists       Code = "already_exists"        // create of a path that is taken
	ExtensionNotAllowed Code = "extension_not_allowed" // artifacts/ holds only .md and .json
	AppendOnly          Code = "append_only"           // daily logs only grow
	MatchCountMismatch  Code = "match_count_mismatch"  // replace found a different number of matches than expected
	FileTooLarge        Code = "file_too_large"        // over the read or write size cap
	IsADirectory        Code = "is_a_directory"        // a file operation named a folder

	// PathOutsideManuals is path_outside_vault for the read-only manuals
	// folder (internal/manuals): its own code, so a model told to fix a
	// manual path is not sent to look in its vault.
	PathOutsideManuals Code = "path_outside_manuals" // absolute path, a ".." segment, or a symbolic link

	// Codes of files as people have them (manuals and the vault): the
	// bytes are in no encoding langspec reads, or two names differ only in
	// Unicode normalisation and cannot be told apart.
	Undecodable  Code = "undecodable"   // not UTF-8, UTF-16 with a BOM, CP932, EUC-JP or ISO-2022-JP
	NameConflict Code = "name_conflict" // "がん保険.md" composed and decomposed, side by side

	// Upstream and category codes (internal/upstream and the category layer
	// over it). They tell a model whether to retry later (the upstream is
	// down), to fix its call (the upstream rejected it), or to pick another
	// category or tool.
	UpstreamUnavailable Code = "upstream_unavailable" // an upstream MCP server is not running: never started, backing off after failed starts
	UpstreamCallError   Code = "upstream_call_error"  // a tools/call failed: timeout, the server ended during the call, or a protocol error
	SchemaFetchError    Code = "schema_fetch_error"   // tools/list of a running upstream failed
	UnknownCategory     Code = "unknown_category"     // no category of that name in langspec.json
	UnknownTool         Code = "unknown_tool"         // the category has no tool of that name
	ToolDisabled        Code = "tool_disabled"        // the tool is configured with enabled=false
)

// Error is an error meant to be shown as it is.
type Error struct {
	Code    Code
	Message string
	Hint    string
	Err     error // the cause, for logs and errors.Is; never shown in place of Message
}

// Error renders "code: message; hint: next step".
func (e *Error) Error() string {
	s := string(e.Code) + ": " + e.Message
	if e.Hint != "" {
		s += "; hint: " + e.Hint
	}
	return s
}

func (e *Error) Unwrap() error { return e.Err }

// New builds an Error; hint may be empty.
func New(code Code, hint, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...), Hint: hint}
}

// Wrap builds an Error that keeps err as its cause.
func Wrap(err error, code Code, hint, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...), Hint: hint, Err: err}
}

// CodeOf returns the code of the first *Error in err's chain, or Internal.
func CodeOf(err error) Code {
	if e, ok := errors.AsType[*Error](err); ok {
		return e.Code
	}
	return Internal
}

// maxQuotedBytes bounds a name quoted into a message: a model can send a
// megabyte-long path, and the error must stay one readable line.
const maxQuotedBytes = 120

// Quote quotes a user-supplied name (a path, an id) for an error message, in
// Go syntax. Letters, marks and digits of any script stay as they are, so
// Japanese names read as written; every other character outside ASCII
// (look-alike slashes such as U+2215, spaces, format and control characters)
// shows as an escape, so a name that only looks right is told apart. Names
// over 120 bytes are cut at a character boundary and their length is given.
func Quote(s string) string {
	suffix := ""
	if len(s) > maxQuotedBytes {
		cut := maxQuotedBytes
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s, suffix = s[:cut], "… ("+strconv.Itoa(len(s))+" bytes)"
	}
	var b strings.Builder
	b.WriteByte('"')
	for len(s) > 0 {
		r, size := utf8.DecodeRuneInString(s)
		var q string
		switch {
		case r == utf8.RuneError && size == 1:
			q = strconv.Quote(s[:1]) // invalid UTF-8: \xNN
		case r < utf8.RuneSelf || unicode.In(r, unicode.L, unicode.M, unicode.N):
			q = strconv.Quote(s[:size])
		default:
			q = strconv.QuoteToASCII(s[:size])
		}
		b.WriteString(q[1 : len(q)-1])
		s = s[size:]
	}
	b.WriteByte('"')
	return b.String() + suffix
}

// JSONKind names the kind of a decoded JSON value for a message ("got an
// array"): null, an object, an array, a string, a boolean or a number
// (float64 or json.Number, however it was decoded).
func JSONKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case float64, json.Number:
		return "a number"
	}
	return fmt.Sprintf("%T", v)
}
