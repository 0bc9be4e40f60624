package middleware

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/langspec/langspec/internal/apperr"
)

// LogCalls writes one line per tool call: the tool, how long it took, and
// how it ended (ok, error with its code, or a protocol error such as an
// unknown tool).
func LogCalls(log *slog.Logger) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method != "tools/call" {
				return next(ctx, method, req)
			}
			start := time.Now()
			res, err := next(ctx, method, req)
			attrs := []any{"tool", toolName(req), "ms", float64(time.Since(start).Microseconds()) / 1000}
			// Over HTTP with auth, who called (the team server's subject).
			if extra := req.GetExtra(); extra != nil && extra.TokenInfo != nil && extra.TokenInfo.UserID != "" {
				attrs = append(attrs, "subject", extra.TokenInfo.UserID)
			}
			level := slog.LevelInfo
			switch r, _ := res.(*mcp.CallToolResult); {
			case err != nil:
				level = slog.LevelWarn
				attrs = append(attrs, "outcome", "protocol_error", "err", err)
			case r != nil && r.IsError:
				level = slog.LevelWarn
				attrs = append(attrs, "outcome", "error", "code", errorCode(r.GetError()), "err", r.GetError())
			default:
				attrs = append(attrs, "outcome", "ok")
			}
			log.Log(ctx, level, "tool call", attrs...)
			return res, err
		}
	}
}

func toolName(req mcp.Request) string {
	if r, ok := req.(*mcp.CallToolRequest); ok && r.Params != nil {
		return r.Params.Name
	}
	return ""
}

// errorCode is the apperr code of err; errors the SDK makes itself are all
// argument validation failures.
func errorCode(err error) apperr.Code {
	if _, ok := errors.AsType[*apperr.Error](err); ok {
		return apperr.CodeOf(err)
	}
	return apperr.InvalidArgument
}
