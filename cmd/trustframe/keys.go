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
	"github.com/trustframe/trustframe/ssa"
	"github.com/trustframe/trustframe/ssa/keyring"
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
	var f keysFlags
	f.register(fs)
	if help {
		return &helpRequested{commandUsage(fs)}
	}
	if err := parseFlags(fs, args[1:], getenv, stderr); err != nil {
		return err
	}
	if err := f.check(sub); err != nil {
		return err
	}
	db, kek, err := f.open(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	kr, err := keyring.OpenKeyring(ctx, db, kek, f.enabled, f.bits)
	if err != nil {
		return err
	}
	if f.federation {
		return federationKeys(ctx, db, kek, &f, sub, stdout, stderr)
	}
	return ssaKeys(ctx, kr, &f, sub, stdout)
}

// keysFlags are the flags of keys; enabled is --ssa-signing-algs, split
// by check.
type keysFlags struct {
	dataDir, database, kekFile string
	alg, kid                   string
	algs                       string
	enabled                    []string
	bits                       int
	federation                 bool
	fedAlg                     string
	fedLifetime                time.Duration
	fedPrepublish              prepublishFlag
}

func (f *keysFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.dataDir, "data-dir", "./trustframe-data", "directory of the database")
	fs.StringVar(&f.database, "database", "", databaseUsage)
	fs.StringVar(&f.kekFile, "kek-file", "", "key-encryption key (default <data-dir>/kek.key)")
	fs.StringVar(&f.alg, "alg", "", "rotate: the algorithm (default: every enabled one)")
	fs.StringVar(&f.kid, "kid", "", "retire: the key to retire")
	fs.StringVar(&f.algs, "ssa-signing-algs", "PS256,ML-DSA-44,ML-DSA-65,ML-DSA-87", "enabled algorithms")
	fs.IntVar(&f.bits, "ssa-rsa-bits", 2048, "size of new PS256 keys")
	fs.BoolVar(&f.federation, "federation", false, "list, rotate, prepare or activate the directory's federation signing keys instead (docs/design.md §13)")
	fs.StringVar(&f.fedAlg, "federation-signing-alg", "ES256", "algorithm of new federation keys")
	fs.DurationVar(&f.fedLifetime, "federation-statement-lifetime", 24*time.Hour, "lifetime of federation statements (prepare: the default --federation-key-prepublish)")
	fs.Var(&f.fedPrepublish, "federation-key-prepublish", keysPrepublishUsage)
}

// check refuses, as a usage error, what keys sub cannot do with these
// flags, before the database is opened.
func (f *keysFlags) check(sub string) error {
	f.enabled = splitList(f.algs)
	if err := checkSigningFlags(f.enabled, f.bits, f.fedAlg, f.fedLifetime, f.fedPrepublish); err != nil {
		return err
	}
	switch {
	case !f.federation && (sub == "prepare" || sub == "activate"):
		return fmt.Errorf("%w: keys %s is for the federation keys: add --federation (SSA keys sign from their rotation)", errUsage, sub)
	case f.federation && sub == "retire":
		return fmt.Errorf("%w: keys retire --federation: federation keys are not retired by hand: a replaced key stays published until what it signed has expired", errUsage)
	case !f.federation && sub == "rotate" && f.alg != "" && !slices.Contains(ssa.AllAlgs, f.alg):
		return fmt.Errorf("%w: --alg must be one of %s", errUsage, strings.Join(ssa.AllAlgs, ", "))
	case !f.federation && sub == "retire" && f.kid == "":
		return fmt.Errorf("%w: --kid is required", errUsage)
	}
	return nil
}

// open opens the database serve uses and its key-encryption key. It
// refuses a data directory without a database: on a mistyped --data-dir
// keys would make a new database, KEK and keys, and a rotation there would
// change nothing the service signs with (docs/decisions.md).
func (f *keysFlags) open(ctx context.Context) (*store.DB, *keyring.KEK, error) {
	if f.database == "" {
		if _, err := os.Stat(filepath.Join(f.dataDir, "trustframe.db")); os.IsNotExist(err) {
			return nil, nil, fmt.Errorf("%w: --data-dir %s holds no database (trustframe.db): keys works on the directory serve uses; check --data-dir, or run trustframe migrate --data-dir %s first to start one",
				errUsage, f.dataDir, f.dataDir)
		}
	}
	db, err := openStore(ctx, f.dataDir, f.database)
	if err != nil {
		return nil, nil, err
	}
	kekFile := f.kekFile
	if kekFile == "" {
		kekFile = filepath.Join(f.dataDir, "kek.key")
	}
	kek, err := keyring.OpenKEK(ctx, db, kekFile)
	if err != nil {
		db.Close()
		return nil, nil, err
	}
	return db, kek, nil
}

// ssaKeys runs keys rotate, retire or list on the SSA signing keys, then
// lists them.
func ssaKeys(ctx context.Context, kr *keyring.Keyring, f *keysFlags, sub string, stdout io.Writer) error {
	actor := store.Audit{Actor: "cli"}
	switch sub {
	case "rotate":
		targets := f.enabled
		if f.alg != "" {
			targets = []string{f.alg}
		}
		for _, a := range targets {
			jwk, err := kr.Rotate(ctx, actor, a)
			if err != nil {
				return err
			}
			fmt.Fprintf(stdout, "%s: new key %s signs from now on\n", a, jwk.Kid)
		}
	case "retire":
		if err := kr.Retire(ctx, actor, f.kid); errors.Is(err, store.ErrNotFound) {
			return fmt.Errorf("no SSA signing key has kid %q: trustframe keys list shows them", f.kid)
		} else if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "key %s retired\n", f.kid)
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

// federationKeys runs keys rotate, prepare, activate or list --federation
// on the directory's federation signing keys, then lists them.
func federationKeys(ctx context.Context, db *store.DB, kek *keyring.KEK, f *keysFlags, sub string, stdout, stderr io.Writer) error {
	fk, err := federation.OpenKeyring(ctx, db, kek, f.fedAlg, f.fedLifetime)
	if err != nil {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	if p := f.fedPrepublish.value(); p != nil {
		fk.SetPrepublish(*p)
	}
	actor := store.Audit{Actor: "cli"}
	switch sub {
	case "rotate":
		jwk, err := fk.Rotate(ctx, actor)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "federation: new key %s signs from now on\n", jwk.KeyID)
	case "prepare":
		err = prepareFederationKey(ctx, db, fk, actor, stdout)
	case "activate":
		err = activateFederationKey(ctx, db, fk, f.fedPrepublish.set, actor, stdout, stderr)
	}
	if err != nil {
		return err
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

// prepareFederationKey publishes the next federation key; a refusal (a
// next key already prepared) is said in the store's own words.
func prepareFederationKey(ctx context.Context, db *store.DB, fk *federation.Keyring, actor store.Audit, stdout io.Writer) error {
	jwk, err := fk.Prepare(ctx, actor)
	var ce *store.ConflictError
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
	return nil
}

// activateFederationKey lets the next federation key sign; a refusal is
// said in the store's own words.
func activateFederationKey(ctx context.Context, db *store.DB, fk *federation.Keyring, prepublishSet bool, actor store.Audit, stdout, stderr io.Writer) error {
	// The instant the next key may sign from was stored when it was
	// prepared; the flags count only for a key prepared before migration
	// 0031 (docs/decisions.md).
	if nk, err := db.NextFederationKey(ctx); err == nil && nk.MaySignFrom != nil && prepublishSet {
		fmt.Fprintf(stderr, "note: --federation-key-prepublish is ignored: key %s may sign from %s, the time stored when it was prepared\n",
			nk.Kid, nk.MaySignFrom.UTC().Format(time.RFC3339))
	}
	k, err := fk.Activate(ctx, actor, time.Now())
	var ce *store.ConflictError
	if errors.As(err, &ce) {
		return errors.New(ce.Message)
	} else if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "federation: key %s signs from now on; the previous one stays published for one statement lifetime\n", k.Kid)
	return nil
}
