package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"regexp"
	"runtime"
	"runtime/debug"
	"strings"
	"time"
)

var version = "0.1.0-dev"

// command is one subcommand as its help shows it.
type command struct {
	name    string
	args    string // what follows the name on the usage line
	summary string
}

// commands lists every subcommand, in the order the help shows them.
var commands = []command{
	{"serve", "[flags]", "run the service (the embedded default needs no flags)"},
	{"migrate", "[flags]", "apply database migrations and exit"},
	{"doctor", "[serve flags]", "check a deployment: flags, database, KEK, keys, URL, sign-in issuer, SMTP, identity providers"},
	{"anchor", "--config FILE [--addr HOST:PORT]", "a standalone OpenID Federation trust anchor (docs/anchor.example.yaml)"},
	{"backup", "--to FILE", "copy the database consistently (also while serve runs)"},
	{"copy-database", "--from FILE --to postgres://…", "move a SQLite directory into an empty PostgreSQL database, then verify it"},
	{"keys", "list|rotate|retire|prepare|activate [flags]", "the signing keys, without the API (also while serve runs): list; rotate [--alg ALG]; retire --kid KID; with --federation the federation keys: list, rotate, prepare, activate"},
	{"seed", "--organisations N", "load synthetic organisations (demos, benchmarks)"},
	{"login", "--server URL [--no-dpop]", "sign in (browser, PKCE) and keep a DPoP-bound token (--no-dpop: a plain Bearer token)"},
	{"api", "METHOD PATH [flags]", "call the API, e.g. trustframe api GET /users/super"},
	{"logout", "[flags]", "revoke and forget the tokens"},
	{"load", "[flags] PATH...", "load generator: GET the paths as the signed-in user and report throughput and latency"},
	{"version", "", "print the version, the commit and the Go version"},
}

// usage is the help of the program as a whole.
func usage() string {
	var b strings.Builder
	b.WriteString("trustframe — the administration service of a trust framework.\n\nUsage:\n")
	for _, c := range commands {
		line := strings.TrimSpace("trustframe " + c.name + " " + c.args)
		fmt.Fprintf(&b, "  %s\n      %s\n", line, c.summary)
	}
	b.WriteString("\nRun \"trustframe COMMAND --help\" for the flags of a command; every flag\n" +
		"--name has an environment twin TRUSTFRAME_NAME (dashes become underscores).\n")
	return b.String()
}

// commandUsage is the help of one subcommand: its usage line, what it does,
// and every flag with its environment twin and default.
func commandUsage(fs *flag.FlagSet) string {
	name := fs.Name()
	c := command{name: name}
	for _, known := range commands {
		if known.name == name || strings.HasPrefix(name, known.name+" ") {
			c = known
		}
	}
	var b strings.Builder
	args := c.args
	if name != c.name { // "keys rotate": the subcommand is already in the name
		args = "[flags]"
	}
	fmt.Fprintf(&b, "Usage: %s\n", strings.TrimSpace("trustframe "+name+" "+args))
	if c.summary != "" {
		fmt.Fprintf(&b, "\n%s\n", c.summary)
	}
	first := true
	fs.VisitAll(func(f *flag.Flag) {
		if first {
			b.WriteString("\nFlags:\n")
			first = false
		}
		def := f.DefValue
		if def == "" {
			def = `""`
		}
		fmt.Fprintf(&b, "  --%s  (env %s, default %s)\n      %s\n", f.Name, envName(f.Name), def, f.Usage)
	})
	return b.String()
}

// helpRequested carries the help text asked for with -h or --help; run
// prints it on standard output and exits 0.
type helpRequested struct{ text string }

func (h *helpRequested) Error() string { return "help requested" }
func (h *helpRequested) Unwrap() error { return flag.ErrHelp }

// asksForHelp reports whether args ask for help before any "--".
func asksForHelp(args []string) bool {
	for _, a := range args {
		switch a {
		case "--":
			return false
		case "-h", "-help", "--help":
			return true
		}
	}
	return false
}

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
	err := dispatch(ctx, args, getenv, stdin, stdout, stderr)
	var help *helpRequested
	if errors.As(err, &help) {
		fmt.Fprint(stdout, help.text)
		return nil
	}
	return err
}

// dispatch runs the subcommand args[0] names.
func dispatch(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage())
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
	case "copy-database":
		return cmdCopyDatabase(ctx, args[1:], getenv, stdout, stderr)
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
		if asksForHelp(args[1:]) {
			return &helpRequested{commandUsage(flag.NewFlagSet("version", flag.ContinueOnError))}
		}
		fmt.Fprintln(stdout, versionLine())
		return nil
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage())
		return nil
	default:
		fmt.Fprint(stderr, usage())
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
	if asksForHelp(args) {
		return &helpRequested{commandUsage(fs)}
	}
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, commandUsage(fs)) }
	if err := fs.Parse(args); err != nil {
		return parseError(fs, err)
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
				err = fmt.Errorf("%w: %s=%q (--%s): %s", errUsage, envName(f.Name), v, f.Name, wants(f))
			}
		}
	})
	return err
}

// badFlagValue matches the flag package's refusal of a value: the quoted
// value and the flag's name.
var badFlagValue = regexp.MustCompile(`^invalid (?:boolean )?value ("(?:[^"\\]|\\.)*") for (?:flag )?-(\S+): `)

// parseError is the usage error for fs.Parse's err: a refused value names
// the flag and the kind of value it wants.
func parseError(fs *flag.FlagSet, err error) error {
	if m := badFlagValue.FindStringSubmatch(err.Error()); m != nil {
		if f := fs.Lookup(m[2]); f != nil {
			return fmt.Errorf("%w: --%s %s: %s", errUsage, f.Name, m[1], wants(f))
		}
	}
	return fmt.Errorf("%w: %v", errUsage, err)
}

// wants says what kind of value a flag takes, for a value it refused.
func wants(f *flag.Flag) string {
	if g, ok := f.Value.(flag.Getter); ok {
		switch g.Get().(type) {
		case bool:
			return "want true or false"
		case int, int64, uint, uint64:
			return "want a whole number"
		case time.Duration:
			return "want a duration such as 60s, 5m or 24h"
		}
	}
	return "not a value it takes"
}

// versionLine is what `trustframe version` prints: the release, the module
// version and the commit the binary was built from (with "+dirty" when the
// work tree had changes), and the Go version.
func versionLine() string {
	module, commit := "(unknown)", "(unknown)"
	goVersion := runtime.Version()
	if bi, ok := debug.ReadBuildInfo(); ok {
		module = bi.Main.Version
		dirty := false
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				commit = s.Value
			case "vcs.modified":
				dirty = s.Value == "true"
			}
		}
		if dirty && commit != "(unknown)" {
			commit += "+dirty"
		}
	}
	return fmt.Sprintf("trustframe %s (module %s, commit %s, %s)", version, module, commit, goVersion)
}
