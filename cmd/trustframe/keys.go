package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/trustframe/trustframe/federation"
	"github.com/trustframe/trustframe/ssa/keyring"

	"github.com/trustframe/trustframe/ssa"
	"github.com/trustframe/trustframe/store"
)

// keysPrepublishUsage is keys' --federation-key-prepublish: it sets the
// instant a key made by prepare may sign from, stored with the key;
// activate follows that instant (docs/decisions.md).
const keysPrepublishUsage = "prepare --federation: how long the next key is published before it may sign; the instant is stored with the key, and keys activate, serve and the API follow it; 0: at once (default one --federation-statement-lifetime). Activate ignores it, except for a key prepared before migration 0031"

// cmdKeys manages the SSA signing keys without the API (also while serve
// runs): list, rotate, retire; with --federation the federation keys:
// list, rotate (at once, the emergency path), prepare and activate (the
// staged rollover, docs/design.md §13).
func cmdKeys(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	help := len(args) > 0 && asksForHelp(args[:1])
	if !help && (len(args) == 0 || !slices.Contains([]string{"list", "rotate", "retire", "prepare", "activate"}, args[0])) {
		return fmt.Errorf("%w: trustframe keys list|rotate [--alg ALG]|retire --kid KID, or keys list|rotate|prepare|activate --federation", errUsage)
	}
	sub := args[0]
	fs := flag.NewFlagSet("keys "+sub, flag.ContinueOnError)
	if help { // keys --help: the flags every subcommand takes
		fs = flag.NewFlagSet("keys", flag.ContinueOnError)
	}
	dataDir := fs.String("data-dir", "./trustframe-data", "directory of the database")
	database := fs.String("database", "", databaseUsage)
	kekFile := fs.String("kek-file", "", "key-encryption key (default <data-dir>/kek.key)")
	alg := fs.String("alg", "", "rotate: the algorithm (default: every enabled one)")
	kid := fs.String("kid", "", "retire: the key to retire")
	algs := fs.String("ssa-signing-algs", "PS256,ML-DSA-44,ML-DSA-65,ML-DSA-87", "enabled algorithms")
	bits := fs.Int("ssa-rsa-bits", 2048, "size of new PS256 keys")
	fed := fs.Bool("federation", false, "list, rotate, prepare or activate the directory's federation signing keys instead (docs/design.md §13)")
	fedAlg := fs.String("federation-signing-alg", "ES256", "algorithm of new federation keys")
	fedLifetime := fs.Duration("federation-statement-lifetime", 24*time.Hour, "lifetime of federation statements (prepare: the default --federation-key-prepublish)")
	var fedPrepublish prepublishFlag
	fs.Var(&fedPrepublish, "federation-key-prepublish", keysPrepublishUsage)
	if help {
		return &helpRequested{commandUsage(fs)}
	}
	if err := parseFlags(fs, args[1:], getenv, stderr); err != nil {
		return err
	}
	enabled := splitList(*algs)
	for _, a := range enabled {
		if !slices.Contains(ssa.AllAlgs, a) {
			return fmt.Errorf("%w: --ssa-signing-algs: unknown algorithm %q (known: %s)", errUsage, a, strings.Join(ssa.AllAlgs, ", "))
		}
	}
	// Checked as serve checks them, before the database is opened.
	if *bits < 2048 {
		return fmt.Errorf("%w: --ssa-rsa-bits must be 2048 or more", errUsage)
	}
	if !slices.Contains(federation.SigningAlgs, *fedAlg) {
		return fmt.Errorf("%w: --federation-signing-alg must be one of %s", errUsage, strings.Join(federation.SigningAlgs, ", "))
	}
	if *fedLifetime <= 0 {
		return fmt.Errorf("%w: --federation-statement-lifetime must be more than 0", errUsage)
	}
	if fedPrepublish.d < 0 {
		return fmt.Errorf("%w: --federation-key-prepublish must be 0 or more", errUsage)
	}
	switch {
	case !*fed && (sub == "prepare" || sub == "activate"):
		return fmt.Errorf("%w: keys %s is for the federation keys: add --federation (SSA keys sign from their rotation)", errUsage, sub)
	case *fed && sub == "retire":
		return fmt.Errorf("%w: keys retire --federation: federation keys are not retired by hand: a replaced key stays published until what it signed has expired", errUsage)
	case !*fed && sub == "rotate" && *alg != "" && !slices.Contains(ssa.AllAlgs, *alg):
		return fmt.Errorf("%w: --alg must be one of %s", errUsage, strings.Join(ssa.AllAlgs, ", "))
	case !*fed && sub == "retire" && *kid == "":
		return fmt.Errorf("%w: --kid is required", errUsage)
	}
	// keys works on a directory serve or migrate has used: on a mistyped
	// --data-dir it made a new database, KEK and keys, and a rotation there
	// changed nothing the service signs with (docs/decisions.md).
	if *database == "" {
		if _, err := os.Stat(filepath.Join(*dataDir, "trustframe.db")); os.IsNotExist(err) {
			return fmt.Errorf("%w: --data-dir %s holds no database (trustframe.db): keys works on the directory serve uses; check --data-dir, or run trustframe migrate --data-dir %s first to start one",
				errUsage, *dataDir, *dataDir)
		}
	}
	db, err := openStore(ctx, *dataDir, *database)
	if err != nil {
		return err
	}
	defer db.Close()
	if *kekFile == "" {
		*kekFile = filepath.Join(*dataDir, "kek.key")
	}
	kek, err := keyring.OpenKEK(ctx, db, *kekFile)
	if err != nil {
		return err
	}
	kr, err := keyring.OpenKeyring(ctx, db, kek, enabled, *bits)
	if err != nil {
		return err
	}
	actor := store.Audit{Actor: "cli"}
	if *fed {
		fk, err := federation.OpenKeyring(ctx, db, kek, *fedAlg, *fedLifetime)
		if err != nil {
			return fmt.Errorf("%w: %v", errUsage, err)
		}
		if p := fedPrepublish.value(); p != nil {
			fk.SetPrepublish(*p)
		}
		var ce *store.ConflictError
		switch sub {
		case "rotate":
			jwk, err := fk.Rotate(ctx, actor)
			if err != nil {
				return err
			}
			fmt.Fprintf(stdout, "federation: new key %s signs from now on\n", jwk.KeyID)
		case "prepare":
			jwk, err := fk.Prepare(ctx, actor)
			if errors.As(err, &ce) {
				return errors.New(ce.Message)
			} else if err != nil {
				return err
			}
			nk, err := db.NextFederationKey(ctx)
			if err != nil {
				return err
			}
			fmt.Fprintf(stdout, "federation: next key %s is published; it may sign from %s (keys activate --federation)\n", jwk.KeyID, fk.MaySignFrom(nk).UTC().Format(time.RFC3339))
		case "activate":
			// The instant the next key may sign from was stored when it
			// was prepared; the flags count only for a key prepared before
			// migration 0031 (docs/decisions.md).
			if nk, err := db.NextFederationKey(ctx); err == nil && nk.MaySignFrom != nil && fedPrepublish.set {
				fmt.Fprintf(stderr, "note: --federation-key-prepublish is ignored: key %s may sign from %s, the time stored when it was prepared\n",
					nk.Kid, nk.MaySignFrom.UTC().Format(time.RFC3339))
			}
			k, err := fk.Activate(ctx, actor, time.Now())
			if errors.As(err, &ce) {
				return errors.New(ce.Message)
			} else if err != nil {
				return err
			}
			fmt.Fprintf(stdout, "federation: key %s signs from now on; the previous one stays published for one statement lifetime\n", k.Kid)
		}
		keys, err := fk.Keys(ctx)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%-10s %-44s %-8s %-19s %s\n", "ALG", "KID", "STATUS", "CREATED", "MAY SIGN FROM")
		for _, k := range keys {
			from := ""
			if k.Status == "Next" {
				from = fk.MaySignFrom(k).UTC().Format("2006-01-02 15:04:05")
			}
			line := fmt.Sprintf("%-10s %-44s %-8s %-19s %s", k.Alg, k.Kid, k.Status, k.CreatedAt.UTC().Format("2006-01-02 15:04:05"), from)
			fmt.Fprintln(stdout, strings.TrimRight(line, " "))
		}
		return nil
	}
	switch sub {
	case "rotate":
		targets := enabled
		if *alg != "" {
			targets = []string{*alg}
		}
		for _, a := range targets {
			jwk, err := kr.Rotate(ctx, actor, a)
			if err != nil {
				return err
			}
			fmt.Fprintf(stdout, "%s: new key %s signs from now on\n", a, jwk.Kid)
		}
	case "retire":
		if err := kr.Retire(ctx, actor, *kid); errors.Is(err, store.ErrNotFound) {
			return fmt.Errorf("no SSA signing key has kid %q: trustframe keys list shows them", *kid)
		} else if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "key %s retired\n", *kid)
	}
	keys, err := kr.Keys(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%-10s %-44s %-8s %s\n", "ALG", "KID", "STATUS", "CREATED")
	for _, k := range keys {
		fmt.Fprintf(stdout, "%-10s %-44s %-8s %s\n", k.Alg, k.Kid, k.Status, k.CreatedAt.UTC().Format("2006-01-02 15:04:05"))
	}
	return nil
}
