// Command trustframe is the administration service of a trust framework.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/trustframe/trustframe/web"
)

func main() {
	ctx, stop := signalContext()
	defer stop()
	if err := run(ctx, os.Args[1:], os.Getenv, os.Stdin, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "trustframe:", web.RedactURLs(err.Error()))
		os.Exit(exitCode(err))
	}
}

// signalContext is cancelled by the first SIGINT or SIGTERM, which starts a
// graceful stop (serve finishes the requests in flight, for up to 15 s); a
// second one ends the process at once, as the signal's default does.
func signalContext() (context.Context, context.CancelFunc) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		<-ctx.Done()
		stop() // the next signal is no longer caught
	}()
	return ctx, stop
}
