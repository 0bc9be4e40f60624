// Package semantic is the optional semantic channel. It talks to an
// OpenAI-compatible embeddings endpoint (POST {url}/embeddings: OpenAI,
// Ollama, llama.cpp's server, vLLM, LM Studio): texts in batches, a few
// requests at a time, tried again with backoff on 429 and 5xx.
package semantic

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/langspec/langspec/internal/apperr"
)

// Options configure a Client.
type Options struct {
	URL        string // the API base, e.g. http://127.0.0.1:11434/v1; /embeddings is added
	Model      string
	APIKey     string // sent as a bearer token when set; never logged
	Dimensions int    // the vectors' length; a vector of another length is an error
	Batch      int    // texts per request; 0 is 64
	// Concurrency bounds the requests in flight; 0 is 2.
	Concurrency int
	// Attempts bounds the tries of one request; 0 is 4.
	Attempts int
	// Timeout bounds one request; 0 is 60 s.
	Timeout time.Duration
	// Backoff is the first wait before a retry (doubled each time, with
	// jitter); 0 is 500 ms.
	Backoff    time.Duration
	HTTPClient *http.Client
}

// Client embeds texts.
type Client struct{ o Options }

// New returns a Client; the options' zero values take their defaults.
func New(o Options) *Client {
	if o.Batch <= 0 {
		o.Batch = 64
	}
	if o.Concurrency <= 0 {
		o.Concurrency = 2
	}
	if o.Attempts <= 0 {
		o.Attempts = 4
	}
	if o.Timeout <= 0 {
		o.Timeout = 60 * time.Second
	}
	if o.Backoff <= 0 {
		o.Backoff = 500 * time.Millisecond
	}
	if o.HTTPClient == nil {
		o.HTTPClient = &http.Client{}
	}
	return &Client{o: o}
}

// Model is the model the client embeds with.
func (c *Client) Model() string { return c.o.Model }

// Embed returns one vector per text, in order, with progress told the
// number of texts done after each batch (nil: not told). Errors:
// unavailable when the endpoint cannot be reached or keeps failing,
// invalid_argument when it answers with vectors of the wrong length.
func (c *Client) Embed(ctx context.Context, texts []string, progress func(done int)) ([][]float32, error) {
	out := make([][]float32, len(texts))
	type batch struct{ from, to int }
	var batches []batch
	for i := 0; i < len(texts); i += c.o.Batch {
		batches = append(batches, batch{i, min(i+c.o.Batch, len(texts))})
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		mu    sync.Mutex
		first error
		done  int
		wg    sync.WaitGroup
		sem   = make(chan struct{}, c.o.Concurrency)
	)
	for _, b := range batches {
		sem <- struct{}{}
		if ctx.Err() != nil {
			<-sem
			break
		}
		wg.Go(func() {
			defer func() { <-sem }()
			vecs, err := c.request(ctx, texts[b.from:b.to])
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				if first == nil {
					first = err
					cancel()
				}
				return
			}
			copy(out[b.from:b.to], vecs)
			done += b.to - b.from
			if progress != nil {
				progress(done)
			}
		})
	}
	wg.Wait()
	if first != nil {
		return nil, first
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

type request struct {
	Model      string   `json:"model"`
	Input      []string `json:"input"`
	Dimensions int      `json:"dimensions,omitempty"`
}

type response struct {
	Data []struct {
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	} `json:"data"`
}

// errRetry marks an answer worth trying again.
var errRetry = errors.New("retry")

// request embeds one batch, trying again on 429, 5xx and network errors.
func (c *Client) request(ctx context.Context, texts []string) ([][]float32, error) {
	body, _ := json.Marshal(request{Model: c.o.Model, Input: texts})
	wait := c.o.Backoff
	var last error
	for attempt := 1; attempt <= c.o.Attempts; attempt++ {
		vecs, err := c.once(ctx, body, len(texts))
		if err == nil || !errors.Is(err, errRetry) {
			return vecs, err
		}
		last = err
		if attempt == c.o.Attempts {
			break
		}
		t := time.NewTimer(wait/2 + rand.N(wait/2+1))
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		case <-t.C:
		}
		wait *= 2
	}
	return nil, apperr.Wrap(last, apperr.Unavailable, "check that the embeddings endpoint is up ("+c.o.URL+")",
		"the embeddings endpoint kept failing: %v", strings.TrimPrefix(last.Error(), errRetry.Error()+": "))
}

func (c *Client) once(ctx context.Context, body []byte, n int) ([][]float32, error) {
	ctx, cancel := context.WithTimeout(ctx, c.o.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimSuffix(c.o.URL, "/")+"/embeddings", bytes.NewReader(body))
	if err != nil {
		return nil, apperr.New(apperr.InvalidArgument, "give the endpoint's base URL, e.g. http://127.0.0.1:11434/v1", "embeddings url: %v", err)
	}
	req.Header.Set("Content-Type", "application/json")
	if c.o.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+c.o.APIKey)
	}
	resp, err := c.o.HTTPClient.Do(req)
	if err != nil {
		if ctx.Err() != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return nil, fmt.Errorf("%w: no answer within %s", errRetry, c.o.Timeout)
		}
		return nil, fmt.Errorf("%w: %v", errRetry, err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, 256<<20))
	switch {
	case resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500:
		return nil, fmt.Errorf("%w: %s", errRetry, resp.Status)
	case resp.StatusCode != http.StatusOK:
		return nil, apperr.New(apperr.Unavailable, "check the embeddings url, model and api_key", "the embeddings endpoint answered %s", resp.Status)
	}
	var r response
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, apperr.New(apperr.Unavailable, "point url at an OpenAI-compatible API", "the embeddings endpoint's answer is not embeddings JSON")
	}
	if len(r.Data) != n {
		return nil, apperr.New(apperr.Unavailable, "", "the embeddings endpoint returned %d vectors for %d texts", len(r.Data), n)
	}
	out := make([][]float32, n)
	for _, d := range r.Data {
		if d.Index < 0 || d.Index >= n {
			return nil, apperr.New(apperr.Unavailable, "", "the embeddings endpoint returned index %d for %d texts", d.Index, n)
		}
		if c.o.Dimensions > 0 && len(d.Embedding) != c.o.Dimensions {
			return nil, apperr.New(apperr.InvalidArgument, "set embeddings.dimensions to the model's, or leave it out",
				"the model gives vectors of %d dimensions; the configuration says %d", len(d.Embedding), c.o.Dimensions)
		}
		out[d.Index] = d.Embedding
	}
	return out, nil
}
