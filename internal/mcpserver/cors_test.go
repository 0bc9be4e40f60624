package mcpserver

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const allowedOrigin = "http://localhost:6274"

// headerValues are the values of header name in h, the name matched
// case-insensitively whatever case it was stored in.
func headerValues(h http.Header, name string) []string {
	var vs []string
	for k, v := range h {
		if strings.EqualFold(k, name) {
			vs = append(vs, v...)
		}
	}
	return vs
}

// corsHeaderNames are the Access-Control-* headers in h.
func corsHeaderNames(h http.Header) []string {
	var names []string
	for k := range h {
		if strings.HasPrefix(strings.ToLower(k), "access-control-") {
			names = append(names, k)
		}
	}
	return names
}

// sameTokens says whether comma-separated header values list the same
// names, in any order and case.
func sameTokens(values []string, want string) bool {
	norm := func(names []string) []string {
		for i, n := range names {
			names[i] = strings.ToLower(n)
		}
		slices.Sort(names)
		return names
	}
	return slices.Equal(norm(headerList(values)), norm(headerList([]string{want})))
}

// checkCORS compares the CORS answer in h with want (header names in any
// case: lists compared as sets of names, the rest exactly); with want
// nil, h must hold no Access-Control-* header at all.
func checkCORS(t *testing.T, h http.Header, want map[string]string) {
	t.Helper()
	if want == nil {
		if names := corsHeaderNames(h); len(names) > 0 {
			t.Errorf("CORS headers %v sent, want none", names)
		}
		return
	}
	for name, w := range want {
		got := headerValues(h, name)
		switch strings.ToLower(name) {
		case "access-control-allow-methods", "access-control-allow-headers", "access-control-expose-headers", "vary":
			if w == "" && len(got) > 0 || w != "" && !sameTokens(got, w) {
				t.Errorf("%s: %q, want %q", name, got, w)
			}
		default:
			if w == "" && len(got) > 0 || w != "" && (len(got) != 1 || got[0] != w) {
				t.Errorf("%s: %q, want %q", name, got, w)
			}
		}
	}
	if got := headerValues(h, "Access-Control-Allow-Credentials"); len(got) > 0 {
		t.Errorf("Access-Control-Allow-Credentials: %q, want none", got)
	}
}

func TestCORS(t *testing.T) {
	preflight := func(acrh string) map[string]string {
		return map[string]string{
			"access-control-allow-origin":   allowedOrigin,
			"Access-Control-Allow-Methods":  "GET, POST, DELETE",
			"ACCESS-CONTROL-ALLOW-HEADERS":  acrh,
			"access-control-max-age":        "600",
			"vary":                          "Origin, Access-Control-Request-Method, Access-Control-Request-Headers",
			"Access-Control-Expose-Headers": "",
		}
	}
	simple := map[string]string{
		"Access-Control-Allow-Origin":   allowedOrigin,
		"access-control-expose-headers": "mcp-session-id, MCP-PROTOCOL-VERSION, www-authenticate",
		"Vary":                          "Origin",
		"Access-Control-Allow-Methods":  "",
		"Access-Control-Max-Age":        "",
	}
	tests := []struct {
		name, method, origin string
		acrm, acrh           string // Access-Control-Request-Method and -Headers
		wantNext             bool   // passed on rather than answered 204
		want                 map[string]string
	}{
		{"preflight from an allowed origin", "OPTIONS", allowedOrigin, "POST", "authorization, content-type, mcp-session-id, mcp-protocol-version",
			false, preflight("Authorization, Content-Type, Mcp-Session-Id, Mcp-Protocol-Version")},
		{"preflight asking in mixed case, in two values", "OPTIONS", allowedOrigin, "GET", "Last-Event-Id,ACCEPT",
			false, preflight("Accept, Last-Event-ID")},
		{"preflight asking for a header not allowed", "OPTIONS", allowedOrigin, "POST", "authorization, x-evil",
			false, preflight("Authorization")},
		{"preflight asking only for headers not allowed", "OPTIONS", allowedOrigin, "POST", "x-evil, cookie", false, preflight("")},
		{"preflight asking for no header", "OPTIONS", allowedOrigin, "DELETE", "",
			false, preflight("Authorization, Content-Type, Accept, Mcp-Session-Id, Mcp-Protocol-Version, Last-Event-ID")},
		{"preflight from another origin", "OPTIONS", "https://evil.example", "POST", "authorization", true, nil},
		{"preflight from a near miss of the origin", "OPTIONS", allowedOrigin + "/", "POST", "authorization", true, nil},
		{"preflight from the origin in upper case", "OPTIONS", strings.ToUpper(allowedOrigin), "POST", "authorization", true, nil},
		{"preflight from origin null", "OPTIONS", "null", "POST", "authorization", true, nil},
		{"OPTIONS that is not a preflight", "OPTIONS", allowedOrigin, "", "", true, simple},
		{"POST from an allowed origin", "POST", allowedOrigin, "", "", true, simple},
		{"GET from an allowed origin", "GET", allowedOrigin, "", "", true, simple},
		{"DELETE from an allowed origin", "DELETE", allowedOrigin, "", "", true, simple},
		{"POST from another origin", "POST", "https://evil.example", "", "", true, nil},
		{"POST without Origin", "POST", "", "", "", true, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var reached bool
			next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				reached = true
				w.Header().Set("Mcp-Session-Id", "s")
				io.WriteString(w, "next")
			})
			req := httptest.NewRequest(tt.method, "/mcp", nil)
			for k, v := range map[string]string{"Origin": tt.origin, "Access-Control-Request-Method": tt.acrm, "Access-Control-Request-Headers": tt.acrh} {
				if v != "" {
					req.Header.Set(k, v)
				}
			}
			rec := httptest.NewRecorder()
			cors(next, []string{"https://other.example", allowedOrigin}).ServeHTTP(rec, req)
			if reached != tt.wantNext {
				t.Fatalf("next reached: %v, want %v", reached, tt.wantNext)
			}
			if !tt.wantNext && (rec.Code != http.StatusNoContent || rec.Body.Len() > 0) {
				t.Errorf("preflight answered %d %q, want 204 and no body", rec.Code, rec.Body)
			}
			checkCORS(t, rec.Header(), tt.want)
			if tt.origin == "" && len(rec.Header().Values("Vary")) > 0 {
				t.Errorf("Vary %q on a request without Origin, want it untouched", rec.Header().Values("Vary"))
			}
		})
	}
}

// Through the chain the team server should build, a browser page from an
// allowed origin gets its preflight answered without a token (the SDK
// alone answers OPTIONS 405), and reads every answer: the session, a 401's
// pointer to the metadata, a refused id. Another origin reads nothing.
func TestCORSChain(t *testing.T) {
	s := mcp.NewServer(&mcp.Implementation{Name: "cors", Version: "1"}, nil)
	sdk := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
	verify := func(_ context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
		if token != "good" {
			return nil, auth.ErrInvalidToken
		}
		return &auth.TokenInfo{Expiration: time.Now().Add(time.Hour)}, nil
	}
	requireToken := auth.RequireBearerToken(verify, &auth.RequireBearerTokenOptions{ResourceMetadataURL: "http://localhost/.well-known/oauth-protected-resource"})
	allowed := []string{allowedOrigin}
	srv := httptest.NewServer(checkOrigin(cors(limitBody(requireToken(vetMessages(sdk, nil)), MaxMessageBytes), allowed), allowed))
	t.Cleanup(srv.Close)

	const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"page","version":"1"}}}`
	exposed := map[string]string{
		"access-control-allow-origin":   allowedOrigin,
		"access-control-expose-headers": "Mcp-Session-Id, Mcp-Protocol-Version, WWW-Authenticate",
		"vary":                          "Origin",
	}
	tests := []struct {
		name, method, origin, token, body string
		preflight                         bool
		wantStatus                        int
		wantHeader                        string // a header the page must be able to read
		want                              map[string]string
	}{
		{"preflight without a token", "OPTIONS", allowedOrigin, "", "", true, http.StatusNoContent, "", map[string]string{
			"access-control-allow-origin":  allowedOrigin,
			"access-control-allow-methods": "GET, POST, DELETE",
			"access-control-allow-headers": "Authorization, Content-Type, Accept, Mcp-Session-Id, Mcp-Protocol-Version",
			"access-control-max-age":       "600",
		}},
		{"preflight from another origin", "OPTIONS", "https://evil.example", "", "", true, http.StatusForbidden, "", nil},
		{"initialize", "POST", allowedOrigin, "good", initialize, false, http.StatusOK, "Mcp-Session-Id", exposed},
		{"initialize without a token", "POST", allowedOrigin, "", initialize, false, http.StatusUnauthorized, "WWW-Authenticate", exposed},
		{"a refused id", "POST", allowedOrigin, "good", `{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, false, http.StatusBadRequest, "", exposed},
		{"initialize from another origin", "POST", "https://evil.example", "good", initialize, false, http.StatusForbidden, "", nil},
		{"initialize without Origin", "POST", "", "good", initialize, false, http.StatusOK, "Mcp-Session-Id", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, err := http.NewRequestWithContext(t.Context(), tt.method, srv.URL, strings.NewReader(tt.body))
			if err != nil {
				t.Fatal(err)
			}
			if tt.origin != "" {
				req.Header.Set("Origin", tt.origin)
			}
			if tt.preflight {
				req.Header.Set("Access-Control-Request-Method", "POST")
				req.Header.Set("Access-Control-Request-Headers", "authorization,content-type,accept,mcp-session-id,mcp-protocol-version")
			} else {
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/event-stream")
			}
			if tt.token != "" {
				req.Header.Set("Authorization", "Bearer "+tt.token)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tt.wantStatus {
				t.Fatalf("status %d (%s), want %d", resp.StatusCode, body, tt.wantStatus)
			}
			if tt.wantHeader != "" && resp.Header.Get(tt.wantHeader) == "" {
				t.Errorf("no %s in the answer", tt.wantHeader)
			}
			checkCORS(t, resp.Header, tt.want)
		})
	}
}
