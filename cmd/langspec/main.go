// Command langspec looks things up in language specifications, offline.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := Main(ctx, os.Args[1:], systemIO(), withHome(os.Getenv, os.UserHomeDir))
	stop()
	os.Exit(code)
}

// withHome is getenv, but for HOME when it is unset: the user's home as
// the system knows it (userHome, os.UserHomeDir). Windows sets USERPROFILE,
// not HOME, and every default place of langspec — the database, the
// config, the state, the HTTP cache, the secrets — is under HOME: without
// this a release archive's binary on Windows would ask for --db on its
// first search.
func withHome(getenv func(string) string, userHome func() (string, error)) func(string) string {
	return func(key string) string {
		v := getenv(key)
		if v == "" && key == "HOME" {
			v, _ = userHome()
		}
		return v
	}
}
