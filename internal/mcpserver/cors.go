package mcpserver

import (
	"net/http"
	"slices"
	"strings"
)

// CORS answers for the MCP endpoint. A browser client sends its bearer
// token in the Authorization header and the session in Mcp-Session-Id,
// neither of which a page may send cross-origin without a preflight, and
// it can read the session id, the negotiated version and the 401's
// pointer to the protected resource metadata only if they are exposed.
const (
	corsAllowMethods = "GET, POST, DELETE"
	// corsAllowHeaders are the request headers a browser client may send.
	corsAllowHeaders  = "Authorization, Content-Type, Accept, Mcp-Session-Id, Mcp-Protocol-Version, Last-Event-ID"
	corsExposeHeaders = "Mcp-Session-Id, Mcp-Protocol-Version, WWW-Authenticate"
	corsMaxAge        = "600" // seconds a browser may reuse a preflight's answer
)

// cors lets browser pages from the allowed origins (exact match, as
// --allow-origin names them) use the MCP endpoint. It answers their
// preflight (OPTIONS with Access-Control-Request-Method) itself, 204,
// because the SDK answers OPTIONS 405 and a preflight carries no
// Authorization header to pass the token check with; their other
// requests get the CORS headers and go on to next, so an error answer
// from further down (401, 413, 429) is readable by the page as well.
//
// Any other Origin gets no CORS header at all, never "*" and never its
// own origin back: the origin check answers it 403, and without the
// headers the browser would not let the page read even that. Requests
// without Origin (clients that are not browsers) pass through untouched.
//
// There is no Access-Control-Allow-Credentials: the token travels in a
// header the page sets, not in a cookie, so the browser's own
// credentials are never needed, and never sent.
//
// It belongs inside checkOrigin (which refuses the other origins) and
// outside the token check, so that a preflight is answered and every
// answer of theirs carries the headers (NewHTTPHandler's chain: checkHost,
// checkOrigin, limitBody, the generation, cors, requireBearer, the limiter,
// vetMessages, the session registry, the SDK's handler).
func cors(next http.Handler, allowed []string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		origin := r.Header.Get("Origin")
		if origin == "" || !slices.Contains(allowed, origin) {
			next.ServeHTTP(w, r)
			return
		}
		h := w.Header()
		h.Set("Access-Control-Allow-Origin", origin)
		h.Add("Vary", "Origin")
		if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
			// The answer depends on the headers asked for, too.
			h.Add("Vary", "Access-Control-Request-Method, Access-Control-Request-Headers")
			h.Set("Access-Control-Allow-Methods", corsAllowMethods)
			if allow := allowedRequestHeaders(r.Header.Values("Access-Control-Request-Headers")); allow != "" {
				h.Set("Access-Control-Allow-Headers", allow)
			}
			h.Set("Access-Control-Max-Age", corsMaxAge)
			w.WriteHeader(http.StatusNoContent)
			return
		}
		h.Set("Access-Control-Expose-Headers", corsExposeHeaders)
		next.ServeHTTP(w, r)
	})
}

// allowedRequestHeaders is the Access-Control-Allow-Headers answer to a
// preflight's Access-Control-Request-Headers: those asked for that are in
// corsAllowHeaders (named as there; header names are case-insensitive and
// browsers ask in lower case), or all of corsAllowHeaders when none were
// asked for. A header not in the list is left out, so the browser refuses
// to send it; "" when nothing asked for is allowed.
func allowedRequestHeaders(requested []string) string {
	asked := headerList(requested)
	if len(asked) == 0 {
		return corsAllowHeaders
	}
	var echo []string
	for _, a := range headerList([]string{corsAllowHeaders}) {
		if slices.ContainsFunc(asked, func(name string) bool { return strings.EqualFold(name, a) }) {
			echo = append(echo, a)
		}
	}
	return strings.Join(echo, ", ")
}

// headerList is the names in comma-separated header values.
func headerList(values []string) []string {
	var names []string
	for _, v := range values {
		for name := range strings.SplitSeq(v, ",") {
			if name = strings.TrimSpace(name); name != "" {
				names = append(names, name)
			}
		}
	}
	return names
}
