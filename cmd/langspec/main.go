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
	code := Main(ctx, os.Args[1:], systemIO(), os.Getenv)
	stop()
	os.Exit(code)
}
