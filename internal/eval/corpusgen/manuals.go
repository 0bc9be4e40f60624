package corpusgen

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// FilesPerFolder is how many files WriteManuals puts in one folder; a
// manual is a tree of topic folders, not one flat folder.
const FilesPerFolder = 50

// Vocabulary tails of the manuals: made-up English words, and Japanese
// compounds of two head nouns (保険金請求, 契約変更), as real manuals coin.
const (
	manualTailEN = 3000
	manualTailJA = 2500
)

// WriteManuals writes files Markdown files into dir, which is the folder
// of one manual (a subfolder of MANUALS_ROOT, named by the caller), in
// topic folders of FilesPerFolder: area-01/note-00001.md,
// area-01/手順-00002.md, … Every third file is Japanese (an insurance
// manual's nouns and endings), the rest English (an operations handbook's
// words), each a "# title" with three to six "##" sections, some with
// "###" subsections, lists and tables, about 2–4 KB, as the fixture manuals
// are. dir is created if needed.
func WriteManuals(dir string, files int) (Stats, error) {
	if files < 1 {
		return Stats{}, fmt.Errorf("corpusgen: want at least 1 file, got %d", files)
	}
	en := vocabulary(manualHeadEN, manualTailEN)
	ja := make([]string, 0, len(manualHeadJA)+manualTailJA)
	ja = append(ja, manualHeadJA...)
	for i := range manualTailJA {
		ja = append(ja, manualHeadJA[i%len(manualHeadJA)]+manualHeadJA[(i/len(manualHeadJA)+1)%len(manualHeadJA)])
	}
	var st Stats
	var buf []byte
	for file := range files {
		r := newRand(streamManualFile | uint64(file))
		japanese := file%3 == 1
		var m manualWriter
		if japanese {
			m = manualWriter{r: r, w: newWords(r, ja), sentence: appendJASentence, title: jaTitle, sep: ""}
		} else {
			m = manualWriter{r: r, w: newWords(r, en), sentence: appendSentence, title: enTitle, sep: " "}
		}
		buf = m.appendFile(buf[:0])
		name := "note"
		if japanese {
			name = "手順"
		}
		rel := fmt.Sprintf("area-%02d/%s-%05d.md", file/FilesPerFolder+1, name, file+1)
		if err := writeFile(dir, rel, buf); err != nil {
			return st, err
		}
		st.Files++
		st.Sections += m.sections
		st.Bytes += int64(len(buf))
	}
	return st, nil
}

// manualWriter writes one manual file in one language.
type manualWriter struct {
	r        *rand.Rand
	w        words
	sentence func([]byte, *rand.Rand, words) []byte
	title    func(*rand.Rand, words) string
	sep      string // between the sentences of a paragraph: Japanese needs no space
	sections int    // headings written
}

func (m *manualWriter) appendFile(buf []byte) []byte {
	buf = m.heading(buf, 1)
	buf = m.paragraph(buf)
	for range 3 + m.r.IntN(4) {
		buf = m.heading(buf, 2)
		for range 1 + m.r.IntN(3) {
			buf = m.paragraph(buf)
		}
		switch m.r.IntN(8) {
		case 0:
			buf = m.table(buf)
		case 1, 2:
			buf = m.list(buf)
		}
		if m.r.IntN(3) == 0 {
			for range 1 + m.r.IntN(2) {
				buf = m.heading(buf, 3)
				buf = m.paragraph(buf)
			}
		}
	}
	return buf
}

func (m *manualWriter) heading(buf []byte, level int) []byte {
	m.sections++
	buf = append(buf, strings.Repeat("#", level)...)
	buf = append(buf, ' ')
	buf = append(buf, m.title(m.r, m.w)...)
	return append(buf, "\n\n"...)
}

func (m *manualWriter) paragraph(buf []byte) []byte {
	for s := range 2 + m.r.IntN(3) {
		if s > 0 {
			buf = append(buf, m.sep...)
		}
		buf = m.sentence(buf, m.r, m.w)
	}
	return append(buf, "\n\n"...)
}

func (m *manualWriter) list(buf []byte) []byte {
	for i := range 3 + m.r.IntN(3) {
		buf = fmt.Appendf(buf, "%d. ", i+1)
		buf = m.sentence(buf, m.r, m.w)
		buf = append(buf, '\n')
	}
	return append(buf, '\n')
}

func (m *manualWriter) table(buf []byte) []byte {
	buf = append(buf, "| "...)
	buf = append(buf, m.w.next()...)
	buf = append(buf, " | "...)
	buf = append(buf, m.w.next()...)
	buf = append(buf, " |\n|---|---|\n"...)
	for range 2 + m.r.IntN(4) {
		buf = fmt.Appendf(buf, "| %s | %d %s |\n", m.w.next(), 1+m.r.IntN(90), m.w.next())
	}
	return append(buf, '\n')
}

// enTitle is two to four ops words, capitalised.
func enTitle(r *rand.Rand, w words) string {
	ws := make([]string, 2+r.IntN(3))
	for i := range ws {
		ws[i] = manualHeadEN[9+r.IntN(len(manualHeadEN)-9)] // past the function words
	}
	return capitalize(strings.Join(ws, " "))
}

// jaTitle is a noun phrase such as 保険金の請求について.
func jaTitle(r *rand.Rand, w words) string {
	suffixes := []string{"について", "の手続き", "の確認", "の流れ", "", "とは"}
	return w.next() + "の" + w.next() + suffixes[r.IntN(len(suffixes))]
}

// appendJASentence appends two to four noun-particle pairs, a noun and an
// ending: 契約者は保険金の請求を窓口で受け付けます。
func appendJASentence(buf []byte, r *rand.Rand, w words) []byte {
	for range 2 + r.IntN(3) {
		buf = append(buf, w.next()...)
		buf = append(buf, jaParticles[r.IntN(len(jaParticles))]...)
		if r.IntN(6) == 0 {
			buf = append(buf, "、"...)
		}
	}
	buf = append(buf, w.next()...)
	buf = append(buf, jaEndings[r.IntN(len(jaEndings))]...)
	return append(buf, "。"...)
}
