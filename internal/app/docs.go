package app

import (
	"bytes"
	"fmt"

	"github.com/langspec/langspec/internal/tools"
)

// ToolTables are the MCP tools as Markdown, one table a family, written
// from the tool values a server lists (`langspec docs`).
func ToolTables() []byte {
	var b bytes.Buffer
	for _, family := range []string{tools.CategorySpec, tools.CategoryManual, tools.CategoryVault, tools.CategoryBridge, tools.CategoryMetaTools} {
		fmt.Fprintf(&b, "## %s\n\n", family)
		tools.WriteTable(&b, family)
		b.WriteString("\n")
	}
	return b.Bytes()
}

// UpdateToolTables rewrites every generated block of a Markdown page
// (tools.UpdateReadme).
func UpdateToolTables(page []byte) ([]byte, error) { return tools.UpdateReadme(page) }
