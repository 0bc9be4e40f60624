package mcpserver

import (
	"slices"
	"strings"

	"github.com/langspec/langspec/internal/apperr"
	"github.com/langspec/langspec/internal/tools"
)

// ToolsetAll names every toolset at once.
const ToolsetAll = "all"

// ToolsetNames are the toolsets a user can turn on, in listing order: the
// tool families of package tools, less the meta tools, which stand in for
// the others in categories mode and are not a choice.
func ToolsetNames() []string {
	return []string{tools.CategorySpec, tools.CategoryManual, tools.CategoryVault, tools.CategoryBridge}
}

// ParseToolsets reads a comma-separated list of toolsets (--toolsets,
// LANGSPEC_TOOLSETS): names in any case, spaces around them ignored, "all"
// for every one. The result is in ToolsetNames order, without repeats; nil
// for a blank list, which means the defaults. Errors: invalid_argument for a
// name that is no toolset, naming the ones there are.
func ParseToolsets(list string) ([]string, error) {
	names := ToolsetNames()
	want := map[string]bool{}
	for item := range strings.SplitSeq(list, ",") {
		name := strings.ToLower(strings.TrimSpace(item))
		switch {
		case name == "":
			continue
		case name == ToolsetAll:
			for _, n := range names {
				want[n] = true
			}
		case slices.Contains(names, name):
			want[name] = true
		default:
			return nil, unknownToolset(item)
		}
	}
	if len(want) == 0 {
		return nil, nil
	}
	return slices.DeleteFunc(names, func(n string) bool { return !want[n] }), nil
}

func unknownToolset(name string) error {
	return apperr.New(apperr.InvalidArgument, "toolsets are "+strings.Join(ToolsetNames(), ", ")+" or "+ToolsetAll+", comma-separated",
		"unknown toolset %s", apperr.Quote(strings.TrimSpace(name)))
}

// checkToolsets rejects a name that is no toolset: Options come from code
// too, not only from ParseToolsets.
func checkToolsets(sets []string) error {
	for _, s := range sets {
		if !slices.Contains(ToolsetNames(), s) {
			return unknownToolset(s)
		}
	}
	return nil
}

// inToolsets is the tools of list whose family is one of sets; nil sets
// keeps every tool.
func inToolsets(list []tools.Tool, sets []string) []tools.Tool {
	if sets == nil {
		return list
	}
	return slices.DeleteFunc(list, func(t tools.Tool) bool { return !slices.Contains(sets, t.Category) })
}
