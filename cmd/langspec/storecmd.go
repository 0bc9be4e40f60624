package main

import (
	"context"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/langspec/langspec/internal/db"
)

// newListCmd is a "list" command over what the store keeps of tokens or
// secrets: a table, or with --json one object a row. cells and asJSON say
// what a row shows; neither ever holds a token or a secret's value.
func newListCmd[T any](f *factory, short string, read func(*db.State, context.Context) ([]T, error),
	header []string, cells func(T) []string, asJSON func(T) any) *cobra.Command {
	var jsonOut bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: short,
		Args:  exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			store, closeStore, err := tokenStore(cmd.Context(), f)
			if err != nil {
				return err
			}
			defer closeStore()
			list, err := read(store, cmd.Context())
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

// deleteSecret deletes the stored secret name of the subject whose home
// is subject ("" for the shared one; subjectHome).
func deleteSecret(ctx context.Context, f *factory, name, subject string) error {
	store, closeStore, err := tokenStore(ctx, f)
	if err != nil {
		return err
	}
	defer closeStore()
	return store.DeleteSecret(ctx, name, subject)
}
