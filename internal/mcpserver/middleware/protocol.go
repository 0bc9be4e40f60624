package middleware

//lint:file-ignore SA1019 logging/setLevel is answered for clients of protocols before 2026-07-28 (SEP-2577's deprecation window; see mcpserver/logging.go)

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// logLevels are the log levels MCP defines, least severe first.
var logLevels = []mcp.LoggingLevel{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}

// ExplainProtocolErrors answers, in words a client can act on and with the
// JSON-RPC code that fits, what the SDK takes or refuses without saying why:
//
//   - logging/setLevel with a level MCP does not define: the SDK stores it
//     and answers {}, and the client then hears nothing. Refused here with
//     -32602, naming the levels.
//   - a list request with a cursor this server never gave: the SDK
//     answers a bare "invalid params". Said here which cursor, and how to
//     page.
//   - a second initialize on a session: the SDK fails it as a plain error,
//     which goes out with code 0. Answered here with -32600 (invalid
//     request).
func ExplainProtocolErrors() mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if p, ok := req.GetParams().(*mcp.SetLoggingLevelParams); ok && method == "logging/setLevel" && p != nil && !knownLevel(p.Level) {
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf(
					"invalid params: unknown log level %q; use one of %s", p.Level, levelList())}
			}
			res, err := next(ctx, method, req)
			if err == nil {
				return res, nil
			}
			if cursor := cursorOf(req); cursor != "" && isBareInvalidParams(err) {
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf(
					"invalid params: cursor %q is not one this server gave; leave cursor out for the first page, then pass each page's nextCursor as it is",
					shorten(cursor))}
			}
			if _, isWire := errors.AsType[*jsonrpc.Error](err); method == "initialize" && !isWire {
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: "invalid request: " + err.Error() +
					"; a session is initialized once: send initialize again only on a new connection (over HTTP, without Mcp-Session-Id)"}
			}
			return res, err
		}
	}
}

func knownLevel(l mcp.LoggingLevel) bool {
	for _, k := range logLevels {
		if l == k {
			return true
		}
	}
	return false
}

// levelList is "debug, info, …, alert or emergency".
func levelList() string {
	names := make([]string, len(logLevels))
	for i, l := range logLevels {
		names[i] = string(l)
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// cursorOf is the cursor of a list request, "" for any other request.
func cursorOf(req mcp.Request) string {
	switch p := req.GetParams().(type) {
	case *mcp.ListToolsParams:
		if p != nil {
			return p.Cursor
		}
	case *mcp.ListResourcesParams:
		if p != nil {
			return p.Cursor
		}
	case *mcp.ListResourceTemplatesParams:
		if p != nil {
			return p.Cursor
		}
	case *mcp.ListPromptsParams:
		if p != nil {
			return p.Cursor
		}
	}
	return ""
}

// isBareInvalidParams reports the SDK's "invalid params" without a word
// more: what it answers for a cursor it cannot decode.
func isBareInvalidParams(err error) bool {
	e, ok := errors.AsType[*jsonrpc.Error](err)
	return ok && e.Code == jsonrpc.CodeInvalidParams && e.Message == "invalid params"
}

// shorten cuts what a client sent for an error message.
func shorten(s string) string {
	const max = 60
	if r := []rune(s); len(r) > max {
		return string(r[:max]) + "…"
	}
	return s
}
