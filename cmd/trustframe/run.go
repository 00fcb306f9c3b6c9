package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

var version = "0.1.0-dev"

const usage = `trustframe — the administration service of a trust framework.

Usage:
  trustframe serve [flags]      run the service (the embedded default needs no flags)
  trustframe migrate [flags]    apply database migrations and exit
  trustframe doctor [serve flags]
                                check a deployment: database, KEK, keys, URL,
                                sign-in issuer, SMTP, identity providers
  trustframe anchor --config FILE [--addr HOST:PORT]
                                a standalone OpenID Federation trust anchor
  trustframe backup --to FILE   copy the database consistently (also while serve runs)
  trustframe keys list|rotate [--alg ALG]|retire --kid KID
                                the SSA signing keys
  trustframe seed --organisations N
                                load synthetic organisations (demos, benchmarks)
  trustframe login --server URL sign in (browser, PKCE) and keep a DPoP-bound token
                                (--no-dpop: a plain Bearer token)
  trustframe api METHOD PATH [--data JSON|@file]
                                call the API, e.g. trustframe api GET /users/super
  trustframe logout             revoke and forget the tokens
  trustframe load [--requests N] [--concurrency C] PATH...
                                load generator: GET the paths as the signed-in
                                user and report throughput and latency
  trustframe version            print the version

Run "trustframe COMMAND --help" for the flags of a command; every flag
--name has an environment twin TRUSTFRAME_NAME (dashes become underscores).
`

// errUsage marks a command-line mistake (exit status 2).
var errUsage = errors.New("usage")

type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

func exitCode(err error) int {
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	if errors.Is(err, errUsage) || errors.Is(err, flag.ErrHelp) {
		return 2
	}
	return 1
}

// run is the whole program; main only wires the process to it.
func run(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return fmt.Errorf("%w: no command", errUsage)
	}
	switch args[0] {
	case "serve":
		return cmdServe(ctx, args[1:], getenv, stdout, stderr)
	case "keys":
		return cmdKeys(ctx, args[1:], getenv, stdout, stderr)
	case "anchor":
		return cmdAnchor(ctx, args[1:], getenv, stdout, stderr)
	case "backup":
		return cmdBackup(ctx, args[1:], getenv, stdout, stderr)
	case "seed":
		return cmdSeed(ctx, args[1:], getenv, stdout, stderr)
	case "doctor":
		return cmdDoctor(ctx, args[1:], getenv, stdout, stderr)
	case "migrate":
		return cmdMigrate(ctx, args[1:], getenv, stdout, stderr)
	case "login":
		return cmdLogin(ctx, args[1:], getenv, stdout, stderr)
	case "api":
		return cmdAPI(ctx, args[1:], getenv, stdin, stdout, stderr)
	case "load":
		return cmdLoad(ctx, args[1:], getenv, stdout, stderr)
	case "logout":
		return cmdLogout(ctx, args[1:], getenv, stdout, stderr)
	case "version", "--version":
		fmt.Fprintln(stdout, "trustframe", version)
		return nil
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return nil
	default:
		fmt.Fprint(stderr, usage)
		return fmt.Errorf("%w: unknown command %q", errUsage, args[0])
	}
}

// envName is the environment twin of a flag.
func envName(flagName string) string {
	return "TRUSTFRAME_" + strings.ToUpper(strings.ReplaceAll(flagName, "-", "_"))
}

// parseFlags parses args, then fills every flag not given on the command
// line from its TRUSTFRAME_* environment twin.
func parseFlags(fs *flag.FlagSet, args []string, getenv func(string) string, stderr io.Writer) error {
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage of trustframe %s:\n", fs.Name())
		fs.VisitAll(func(f *flag.Flag) {
			def := f.DefValue
			if def == "" {
				def = `""`
			}
			fmt.Fprintf(stderr, "  --%s  (env %s, default %s)\n      %s\n", f.Name, envName(f.Name), def, f.Usage)
		})
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: unexpected argument %q", errUsage, fs.Arg(0))
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	var err error
	fs.VisitAll(func(f *flag.Flag) {
		if set[f.Name] || err != nil {
			return
		}
		if v := getenv(envName(f.Name)); v != "" {
			if e := f.Value.Set(v); e != nil {
				err = fmt.Errorf("%w: %s=%q: %v", errUsage, envName(f.Name), v, e)
			}
		}
	})
	return err
}
