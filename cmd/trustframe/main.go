// Command trustframe is the administration service of a trust framework.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"regexp"
	"syscall"

	"github.com/trustframe/trustframe/web"
)

func main() {
	ctx, stop := signalContext()
	defer stop()
	if err := run(ctx, os.Args[1:], os.Getenv, os.Stdin, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "trustframe:", operatorMessage(err))
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

// packagePrefix is a Go package's name at the start of an error's part
// ("store: ", "ssa: "): where in the code, which says nothing to an
// operator reading the message.
var packagePrefix = regexp.MustCompile(`(^|: )(?:store|ssa|keyring|directory|web|federation|devidp|dpop): `)

// operatorMessage is an error as the command prints it: URLs' secrets
// redacted, package prefixes left out.
func operatorMessage(err error) string {
	msg := web.RedactURLs(err.Error())
	for { // "federation: store: x": each pass takes one of two adjacent prefixes
		next := packagePrefix.ReplaceAllString(msg, "$1")
		if next == msg {
			return msg
		}
		msg = next
	}
}
