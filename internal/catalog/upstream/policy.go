package upstream

import (
	"container/list"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/langspec/langspec/internal/apperr"
)

// RetryPolicy is how calls of one upstream are tried again: only for the
// error classes of RetryOn, with waits that grow by Multiplier and a random
// part, and a call the server may have received only for a tool that is
// safe to send twice. The zero value tries once.
type RetryPolicy struct {
	Attempts       int     `json:"attempts,omitempty" jsonschema:"tries in all, 1 to 10 (1: no retry; the default)"`
	InitialDelayMs int     `json:"initialDelayMs,omitempty" jsonschema:"wait before the first retry, in milliseconds (default 200)"`
	MaxDelayMs     int     `json:"maxDelayMs,omitempty" jsonschema:"longest wait between tries, in milliseconds (default 5000)"`
	Multiplier     float64 `json:"multiplier,omitempty" jsonschema:"each wait is the last times this, up to maxDelayMs (default 2); a random part of each wait (jitter) keeps clients apart"`
	// RetryOn are the error classes tried again.
	RetryOn []string `json:"retryOn,omitempty" jsonschema:"error classes to try again: upstream_unavailable (the server could not be reached; the call was never sent) and upstream_call_error (timeout or the server ended during the call; only for tools annotated read-only or idempotent, which are safe to send twice). Default: both"`
}

// CachePolicy keeps the results of one upstream's read-only and idempotent
// tools, the only ones whose answer a second call would not change: an LRU
// of maxEntries, each fresh for ttl. Off unless set.
type CachePolicy struct {
	TTLSeconds int `json:"ttlSeconds" jsonschema:"how long a result is served again, in seconds (1 to 86400)"`
	MaxEntries int `json:"maxEntries,omitempty" jsonschema:"results kept, the least recently used dropped first (default 256, at most 100000)"`
}

// Retry classes (apperr codes).
var retryClasses = []string{string(apperr.UpstreamUnavailable), string(apperr.UpstreamCallError)}

func (p *RetryPolicy) validate(field func(string) string) error {
	if p == nil {
		return nil
	}
	bad := func(f, hint, format string, args ...any) error {
		return apperr.New(apperr.InvalidArgument, hint, "%s: %s", field("retry."+f), fmt.Sprintf(format, args...))
	}
	switch {
	case p.Attempts < 0 || p.Attempts > 10:
		return bad("attempts", "use 1 to 10", "%d is out of range", p.Attempts)
	case p.InitialDelayMs < 0 || p.MaxDelayMs < 0 || p.InitialDelayMs > 60000 || p.MaxDelayMs > 60000:
		return bad("initialDelayMs", "use 0 to 60000 milliseconds for initialDelayMs and maxDelayMs", "out of range")
	case p.Multiplier != 0 && (p.Multiplier < 1 || p.Multiplier > 10):
		return bad("multiplier", "use 1 to 10", "%g is out of range", p.Multiplier)
	}
	for i, c := range p.RetryOn {
		if !slices.Contains(retryClasses, c) {
			return bad(fmt.Sprintf("retryOn[%d]", i), "use "+strings.Join(retryClasses, " or "), "%q is not an error class", c)
		}
	}
	return nil
}

func (p *CachePolicy) validate(field func(string) string) error {
	if p == nil {
		return nil
	}
	if p.TTLSeconds < 1 || p.TTLSeconds > 86400 {
		return apperr.New(apperr.InvalidArgument, "use 1 to 86400 seconds", "%s: %d is out of range", field("cache.ttlSeconds"), p.TTLSeconds)
	}
	if p.MaxEntries < 0 || p.MaxEntries > 100000 {
		return apperr.New(apperr.InvalidArgument, "use 1 to 100000", "%s: %d is out of range", field("cache.maxEntries"), p.MaxEntries)
	}
	return nil
}

// caller applies one upstream's policies around its calls: arguments
// checked against the tool's input schema, results of safe tools cached,
// failed calls tried again.
type caller struct {
	retry RetryPolicy
	cache *resultCache // nil: no cache
	now   func() time.Time
	sleep func(ctx context.Context, d time.Duration) error

	mu      sync.Mutex
	schemas map[string]*resolvedSchema // by listing key and tool
}

type resolvedSchema struct {
	rs  *jsonschema.Resolved
	err error
}

func newCaller(retry *RetryPolicy, cache *CachePolicy, now func() time.Time) *caller {
	c := &caller{now: now, sleep: sleepCtx, schemas: map[string]*resolvedSchema{}}
	if retry != nil {
		c.retry = *retry
	}
	if cache != nil {
		c.cache = newResultCache(cmpOrInt(cache.MaxEntries, 256), time.Duration(cache.TTLSeconds)*time.Second)
	}
	return c
}

func cmpOrInt(v, def int) int {
	if v == 0 {
		return def
	}
	return v
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// checkArgs validates args against tool's input schema, naming what is
// wrong. A tool the listing lacks, or a schema that does not resolve, is
// left to the server to judge.
func (c *caller) checkArgs(list *ToolList, tool *mcp.Tool, args map[string]any) error {
	if tool == nil || tool.InputSchema == nil {
		return nil
	}
	key := list.Key + "\x00" + tool.Name
	c.mu.Lock()
	r := c.schemas[key]
	c.mu.Unlock()
	if r == nil {
		r = &resolvedSchema{}
		b, err := json.Marshal(tool.InputSchema)
		var s jsonschema.Schema
		if err == nil {
			err = json.Unmarshal(b, &s)
		}
		if err == nil {
			r.rs, r.err = s.Resolve(&jsonschema.ResolveOptions{ValidateDefaults: false})
		} else {
			r.err = err
		}
		c.mu.Lock()
		c.schemas[key] = r
		c.mu.Unlock()
	}
	if r.err != nil {
		return nil // the server will judge
	}
	// Validate works on JSON values: round-trip args so that Go types
	// (ints, structs) look as they will on the wire.
	var v any = map[string]any{}
	if len(args) > 0 {
		b, err := json.Marshal(args)
		if err != nil {
			return apperr.New(apperr.InvalidArgument, "pass JSON values", "arguments of %q do not encode as JSON: %v", tool.Name, err)
		}
		if err := json.Unmarshal(b, &v); err != nil {
			return apperr.New(apperr.InvalidArgument, "pass JSON values", "arguments of %q: %v", tool.Name, err)
		}
	}
	if err := r.rs.Validate(v); err != nil {
		return apperr.New(apperr.InvalidArgument, "call get-category-tools for the tool's input schema, and pass what it asks for",
			"arguments of %q do not fit its input schema: %v", tool.Name, err)
	}
	return nil
}

// safe says whether sending tool twice does no harm: annotated read-only
// or idempotent by its server.
func safe(tool *mcp.Tool) bool {
	if tool == nil || tool.Annotations == nil {
		return false
	}
	a := tool.Annotations
	return a.ReadOnlyHint || a.IdempotentHint
}

// do runs call under the policies; tool is the listed tool (nil when the
// listing lacks it).
func (c *caller) do(ctx context.Context, server string, tool *mcp.Tool, name string, args map[string]any,
	call func(ctx context.Context) (*mcp.CallToolResult, error)) (*mcp.CallToolResult, error) {
	var key string
	if c.cache != nil && safe(tool) {
		b, err := json.Marshal(args) // map keys sorted: the same arguments, the same key
		if err == nil {
			key = name + "\x00" + string(b)
			if res, ok := c.cache.get(key, c.now()); ok {
				return res, nil
			}
		}
	}
	attempts := max(c.retry.Attempts, 1)
	delay := time.Duration(cmpOrInt(c.retry.InitialDelayMs, 200)) * time.Millisecond
	maxDelay := time.Duration(cmpOrInt(c.retry.MaxDelayMs, 5000)) * time.Millisecond
	mult := c.retry.Multiplier
	if mult == 0 {
		mult = 2
	}
	var res *mcp.CallToolResult
	var err error
	for attempt := 1; ; attempt++ {
		res, err = call(ctx)
		if err == nil || attempt >= attempts || !c.retryable(err, tool) || ctx.Err() != nil {
			break
		}
		// Full jitter over the upper half: clients that failed together
		// do not come back together.
		wait := delay/2 + rand.N(delay/2+1)
		if serr := c.sleep(ctx, wait); serr != nil {
			break
		}
		delay = min(time.Duration(float64(delay)*mult), maxDelay)
	}
	if err == nil && key != "" && !res.IsError {
		c.cache.put(key, res, c.now())
	}
	return res, err
}

// retryable says whether err may be tried again for tool: its class is
// one the policy retries, and a call that may have reached the server is
// only repeated for a safe tool.
func (c *caller) retryable(err error, tool *mcp.Tool) bool {
	code := string(apperr.CodeOf(err))
	classes := c.retry.RetryOn
	if classes == nil {
		classes = retryClasses
	}
	if !slices.Contains(classes, code) {
		return false
	}
	return code == string(apperr.UpstreamUnavailable) || safe(tool)
}

// resultCache is an LRU of call results, each fresh for ttl.
type resultCache struct {
	max int
	ttl time.Duration

	mu    sync.Mutex
	order *list.List // front: most recently used; values are *cacheEntry
	byKey map[string]*list.Element
}

type cacheEntry struct {
	key     string
	res     *mcp.CallToolResult
	expires time.Time
}

func newResultCache(max int, ttl time.Duration) *resultCache {
	return &resultCache{max: max, ttl: ttl, order: list.New(), byKey: map[string]*list.Element{}}
}

func (c *resultCache) get(key string, now time.Time) (*mcp.CallToolResult, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.byKey[key]
	if e == nil {
		return nil, false
	}
	ent := e.Value.(*cacheEntry)
	if !now.Before(ent.expires) {
		c.order.Remove(e)
		delete(c.byKey, key)
		return nil, false
	}
	c.order.MoveToFront(e)
	cp := *ent.res // callers may set fields of their copy
	return &cp, true
}

func (c *resultCache) put(key string, res *mcp.CallToolResult, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	cp := *res
	if e := c.byKey[key]; e != nil {
		e.Value = &cacheEntry{key: key, res: &cp, expires: now.Add(c.ttl)}
		c.order.MoveToFront(e)
		return
	}
	c.byKey[key] = c.order.PushFront(&cacheEntry{key: key, res: &cp, expires: now.Add(c.ttl)})
	for c.order.Len() > c.max {
		last := c.order.Back()
		c.order.Remove(last)
		delete(c.byKey, last.Value.(*cacheEntry).key)
	}
}
