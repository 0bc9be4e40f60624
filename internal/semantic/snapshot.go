package semantic

import (
	"context"
	"crypto/sha256"
	"encoding/hex"

	"github.com/langspec/langspec/internal/db"
)

// maxRunes bounds the text of one section sent to the endpoint: the
// heading and the start of the body say what a section is about, and
// models take a few thousand tokens at most.
const maxRunes = 6000

// Text is what the semantic channel embeds for a section: its heading and
// the start of its text.
func Text(s db.SectionText) string {
	t := s.Title + "\n\n" + s.Body
	if r := []rune(t); len(r) > maxRunes {
		t = string(r[:maxRunes])
	}
	return t
}

// Hash keys a text's vector: the same text, the same vector, whatever
// section or version it is in.
func Hash(text string) string {
	sum := sha256.Sum256([]byte(text))
	return hex.EncodeToString(sum[:])
}

// Report is what EmbedSnapshot did.
type Report struct {
	Model    string `json:"model"`
	Sections int    `json:"sections"`
	Embedded int    `json:"embedded"` // sent to the endpoint
	Cached   int    `json:"cached"`   // already stored: nothing sent
}

// EmbedSnapshot embeds the sections of language/doc at version that have
// no vector of the client's model yet, and stores them; progress is told
// how many of those are done.
func EmbedSnapshot(ctx context.Context, store *db.DB, c *Client, language, doc, version string, progress func(done, total int)) (Report, error) {
	rep := Report{Model: c.Model()}
	secs, err := store.SnapshotTexts(ctx, language, doc, version)
	if err != nil {
		return rep, err
	}
	rep.Sections = len(secs)
	var texts, hashes []string
	seen := map[string]bool{}
	for _, s := range secs {
		t := Text(s)
		h := Hash(t)
		if !seen[h] {
			seen[h] = true
			texts, hashes = append(texts, t), append(hashes, h)
		}
	}
	have, err := store.HaveVectors(ctx, c.Model(), hashes)
	if err != nil {
		return rep, err
	}
	var todo []string
	var todoHashes []string
	for i, h := range hashes {
		if !have[h] {
			todo, todoHashes = append(todo, texts[i]), append(todoHashes, h)
		}
	}
	rep.Cached = len(hashes) - len(todo)
	if len(todo) == 0 {
		return rep, nil
	}
	vecs, err := c.Embed(ctx, todo, func(done int) {
		if progress != nil {
			progress(done, len(todo))
		}
	})
	if err != nil {
		return rep, err
	}
	byHash := make(map[string][]float32, len(vecs))
	for i, v := range vecs {
		byHash[todoHashes[i]] = v
	}
	if err := store.PutVectors(ctx, c.Model(), byHash); err != nil {
		return rep, err
	}
	rep.Embedded = len(todo)
	return rep, nil
}
