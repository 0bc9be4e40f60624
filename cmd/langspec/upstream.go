package main

import (
	"fmt"
	"os/exec"
	"runtime"
	"time"

	"github.com/spf13/cobra"
)

func newCmdUpstream(f *factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "upstream",
		Short: "Log in to upstream MCP servers that use OAuth",
	}
	asGroup(cmd)
	cmd.AddCommand(newCmdUpstreamLogin(f), newCmdUpstreamLogout(f))
	return cmd
}

func newCmdUpstreamLogin(f *factory) *cobra.Command {
	var subject string
	var noBrowser bool
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:   "login NAME",
		Short: "Log in to an upstream with OAuth (authorization code with PKCE) and keep the tokens encrypted",
		Long: `login runs the OAuth authorization-code flow with PKCE for the mcpServers
entry NAME, which must have an "oauth" block: it prints the address to open
(and opens a browser where there is one), takes the redirect on a loopback
port, and stores the tokens encrypted like secrets. Access tokens are then
renewed before they expire, and once when the server answers 401.`,
		Args: exactArgs(1, "the upstream's NAME (an mcpServers entry)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			a, err := f.plainApp()
			if err != nil {
				return err
			}
			defer a.Close()
			home, err := subjectHome(a, subject)
			if err != nil {
				return err
			}
			err = a.UpstreamLogin(cmd.Context(), args[0], home, timeout, func(u string) {
				fmt.Fprintf(f.io.ErrOut, "langspec: open this address to log in to %s:\n%s\n", args[0], u)
				if !noBrowser {
					openBrowser(u)
				}
			})
			if err != nil {
				return err
			}
			fmt.Fprintf(f.io.ErrOut, "langspec: logged in to %s%s\n", args[0], forSubject(subject))
			return nil
		},
	}
	cmd.Flags().StringVar(&subject, "subject", "", "log in for this team server subject: "+subjectFlagHelp+" (default: shared by everyone)")
	cmd.Flags().BoolVar(&noBrowser, "no-browser", false, "only print the address")
	cmd.Flags().DurationVar(&timeout, "timeout", 5*time.Minute, "how long to wait for the browser")
	return cmd
}

// openBrowser opens u where a browser can be started; quietly nothing
// elsewhere (the address is printed anyway).
func openBrowser(u string) {
	var name string
	var args []string
	switch runtime.GOOS {
	case "darwin":
		name = "open"
	case "windows":
		name, args = "rundll32", []string{"url.dll,FileProtocolHandler"}
	default:
		name = "xdg-open"
	}
	if _, err := exec.LookPath(name); err != nil {
		return
	}
	c := exec.Command(name, append(args, u)...)
	if c.Start() == nil {
		go c.Wait()
	}
}

func newCmdUpstreamLogout(f *factory) *cobra.Command {
	var subject string
	cmd := &cobra.Command{
		Use:   "logout NAME",
		Short: "Forget an upstream's OAuth tokens",
		Args:  exactArgs(1, "the upstream's NAME"),
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
			if err := a.UpstreamLogout(cmd.Context(), args[0], home); err != nil {
				return err
			}
			fmt.Fprintf(f.io.ErrOut, "langspec: logged out of %s%s\n", args[0], forSubject(subject))
			return nil
		},
	}
	cmd.Flags().StringVar(&subject, "subject", "", "the subject's own login: "+subjectFlagHelp+" (default: the shared one)")
	return cmd
}
