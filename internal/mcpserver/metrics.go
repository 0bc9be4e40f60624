package mcpserver

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/langspec/langspec/internal/teamauth"
	"github.com/langspec/langspec/internal/tools"
)

// metrics are the team server's Prometheus metrics, in a registry of
// their own (no global state): tool calls by tool and outcome, and their
// latency by tool.
type metrics struct {
	reg      *prometheus.Registry
	calls    *prometheus.CounterVec
	duration *prometheus.HistogramVec
}

func newMetrics() *metrics {
	m := &metrics{
		reg: prometheus.NewRegistry(),
		calls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "langspec_tool_calls_total", Help: "Tool calls, by tool and outcome (ok, error: the tool said isError, protocol_error).",
		}, []string{"tool", "outcome"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "langspec_tool_call_duration_seconds", Help: "How long tool calls took, by tool.",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30},
		}, []string{"tool"}),
	}
	m.reg.MustRegister(m.calls, m.duration)
	return m
}

// middleware counts tool calls. The tool label is one of langspec's own
// tool names, "upstream" for an upstream tool listed as category__tool, or
// "unknown": a client could otherwise make a label of any name and grow
// the series without bound.
func (m *metrics) middleware() mcp.Middleware {
	known := map[string]bool{}
	for _, t := range append(tools.Inventory(), tools.Meta()...) {
		known[t.Def.Name] = true
	}
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method != "tools/call" {
				return next(ctx, method, req)
			}
			start := time.Now()
			res, err := next(ctx, method, req)
			tool := "unknown"
			if r, ok := req.(*mcp.CallToolRequest); ok && r.Params != nil {
				switch name := r.Params.Name; {
				case known[name]:
					tool = name
				case strings.Contains(name, flatUpstreamSeparator):
					tool = "upstream"
				}
			}
			outcome := "ok"
			switch r, _ := res.(*mcp.CallToolResult); {
			case err != nil:
				outcome = "protocol_error"
			case r != nil && r.IsError:
				outcome = "error"
			}
			m.calls.WithLabelValues(tool, outcome).Inc()
			m.duration.WithLabelValues(tool).Observe(time.Since(start).Seconds())
			return res, err
		}
	}
}

// handler serves the metrics to an admin subject (or to anyone when the
// server has no auth); others get 403, a request without a token 401.
func (m *metrics) handler(verify, limit func(http.Handler) http.Handler) http.Handler {
	serve := promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
	if verify == nil {
		return limit(serve)
	}
	return verify(limit(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s, ok := teamauth.FromContext(r.Context()); !ok || !s.Admin {
			http.Error(w, "metrics are for admin tokens (langspec token create NAME --admin)", http.StatusForbidden)
			return
		}
		serve.ServeHTTP(w, r)
	})))
}
