package main

import (
	"context"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/langspec/langspec/internal/app"
)

// newListCmd is a "list" command over what the state keeps of tokens or
// secrets: a table, or with --json one object a row. cells and asJSON say
// what a row shows; neither ever holds a token or a secret's value.
func newListCmd[T any](f *factory, short string, read func(*app.App, context.Context) ([]T, error),
	header []string, cells func(T) []string, asJSON func(T) any) *cobra.Command {
	var jsonOut bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: short,
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			a, err := f.specApp()
			if err != nil {
				return err
			}
			defer a.Close()
			list, err := read(a, cmd.Context())
			if err != nil {
				return err
			}
			if jsonOut {
				out := make([]any, 0, len(list))
				for _, v := range list {
					out = append(out, asJSON(v))
				}
				return writeJSON(f.io.Out, out)
			}
			tw := tabwriter.NewWriter(f.io.Out, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, strings.Join(header, "\t"))
			for _, v := range list {
				fmt.Fprintln(tw, strings.Join(cells(v), "\t"))
			}
			return tw.Flush()
		},
	}
	cmd.Flags().BoolVar(&jsonOut, "json", false, "print JSON")
	return cmd
}
