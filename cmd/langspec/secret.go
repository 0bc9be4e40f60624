package main

import (
	"bytes"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/langspec/langspec/internal/app"
	"github.com/langspec/langspec/internal/apperr"
)

// maxSecretBytes bounds a value read from stdin.
const maxSecretBytes = 64 << 10

func newCmdSecret(f *factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "secret",
		Short: "Keep the secrets upstream servers need, encrypted in the database",
		Long: `Secrets are values langspec hands to upstream servers — API keys, tokens —
named in mcpServers as ${secret:NAME} (in env, headers or url). Each is
AES-256-GCM encrypted in the database under a key kept outside it:
` + app.SecretKeyEnv + ` (32 bytes as base64 or hex), or else a key file made on
first use with 0600 permissions ($XDG_CONFIG_HOME/langspec/secret.key).
A value never appears in output, logs or errors.`,
	}
	asGroup(cmd)
	cmd.AddCommand(newCmdSecretSet(f), newCmdSecretList(f), newCmdSecretDelete(f), newCmdSecretRotate(f))
	return cmd
}

// subjectHome reads --subject (app.App.SubjectHome): a usage mistake
// when it names no subject.
func subjectHome(a *app.App, subject string) (string, error) {
	home, err := a.SubjectHome(subject)
	if err != nil {
		return "", usageError{err}
	}
	return home, nil
}

// subjectFlagHelp is what every --subject says of itself.
const subjectFlagHelp = "a token's name, or jwt:SUB for a subject of the identity provider"

func newCmdSecretSet(f *factory) *cobra.Command {
	var subject string
	cmd := &cobra.Command{
		Use:   "set NAME",
		Short: "Store a secret read from stdin",
		Example: `  printf %s "$GITHUB_TOKEN" | langspec secret set GITHUB_TOKEN
  langspec secret set GITHUB_TOKEN --subject alice < alice-token.txt`,
		Args: exactArgs(1, "the secret's NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			a, err := f.specApp() // the configuration, when it reads, names the identity provider of jwt:SUB
			if err != nil {
				return err
			}
			defer a.Close()
			home, err := subjectHome(a, subject)
			if err != nil {
				return err
			}
			value, err := io.ReadAll(io.LimitReader(f.io.In, maxSecretBytes+1))
			if err != nil {
				return err
			}
			if len(value) > maxSecretBytes {
				return usageError{apperr.New(apperr.InvalidArgument, "", "the value is over %d bytes", maxSecretBytes)}
			}
			// One final newline is the shell's (echo, a here-string), not
			// the secret's.
			value = bytes.TrimSuffix(bytes.TrimSuffix(value, []byte("\n")), []byte("\r"))
			err = a.SetSecret(cmd.Context(), args[0], home, value)
			if apperr.CodeOf(err) == apperr.InvalidArgument {
				return usageError{err}
			}
			if err != nil {
				return err
			}
			fmt.Fprintf(f.io.ErrOut, "langspec: secret %q stored%s\n", args[0], forSubject(subject))
			return nil
		},
	}
	cmd.Flags().StringVar(&subject, "subject", "", "the team server subject it is for: "+subjectFlagHelp+" (default: shared by everyone; a subject's own wins)")
	return cmd
}

func forSubject(s string) string {
	if s == "" {
		return ""
	}
	return " for " + s
}

func newCmdSecretList(f *factory) *cobra.Command {
	type row struct {
		Name      string `json:"name"`
		Subject   string `json:"subject,omitempty"`
		CreatedAt string `json:"created_at"`
		UpdatedAt string `json:"updated_at"`
	}
	return newListCmd(f, "List secrets: names, subjects and dates, never values", (*app.App).Secrets,
		[]string{"NAME", "SUBJECT", "CREATED", "UPDATED"},
		func(s app.Secret) []string {
			sub := s.Subject
			if sub == "" {
				sub = "(shared)"
			}
			return []string{s.Name, sub, s.CreatedAt.Format(time.DateTime), s.UpdatedAt.Format(time.DateTime)}
		},
		func(s app.Secret) any {
			return row{s.Name, s.Subject, s.CreatedAt.Format(time.RFC3339), s.UpdatedAt.Format(time.RFC3339)}
		})
}

func newCmdSecretDelete(f *factory) *cobra.Command {
	var subject string
	cmd := &cobra.Command{
		Use:   "delete NAME",
		Short: "Delete a secret",
		Args:  exactArgs(1, "the secret's NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			a, err := f.specApp()
			if err != nil {
				return err
			}
			defer a.Close()
			home, err := subjectHome(a, subject)
			if err != nil {
				return err
			}
			if err := a.DeleteSecret(cmd.Context(), args[0], home); err != nil {
				return err
			}
			fmt.Fprintf(f.io.ErrOut, "langspec: secret %q deleted%s\n", args[0], forSubject(subject))
			return nil
		},
	}
	cmd.Flags().StringVar(&subject, "subject", "", "the subject's own secret: "+subjectFlagHelp+" (default: the shared one)")
	return cmd
}

func newCmdSecretRotate(f *factory) *cobra.Command {
	return &cobra.Command{
		Use:   "rotate-key",
		Short: "Re-encrypt every secret under a new key, in one transaction",
		Long: `rotate-key re-encrypts every secret under a new key, all or nothing. With
the key file, the new key is made and replaces the file once the database
has committed. With ` + app.SecretKeyEnv + `, give the new key in ` + app.SecretNewKeyEnv + `
and set ` + app.SecretKeyEnv + ` to it afterwards.`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			a, err := f.specApp()
			if err != nil {
				return err
			}
			defer a.Close()
			r, err := a.RotateSecretKey(cmd.Context())
			if apperr.CodeOf(err) == apperr.InvalidArgument {
				return usageError{err}
			}
			if err != nil {
				return err
			}
			if r.File != "" {
				fmt.Fprintf(f.io.ErrOut, "langspec: %d secrets re-encrypted; the new key is in %s\n", r.Secrets, r.File)
			} else {
				fmt.Fprintf(f.io.ErrOut, "langspec: %d secrets re-encrypted; set %s to the value of %s now\n", r.Secrets, app.SecretKeyEnv, app.SecretNewKeyEnv)
			}
			return nil
		},
	}
}
