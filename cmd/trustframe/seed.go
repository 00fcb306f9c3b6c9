package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/trustframe/trustframe/store"
)

// cmdSeed loads synthetic organisations (for demos and benchmarks).
func cmdSeed(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("seed", flag.ContinueOnError)
	dataDir := fs.String("data-dir", "./trustframe-data", "directory of the database")
	database := fs.String("database", "", databaseUsage)
	n := fs.Int("organisations", 1000, "how many organisations to add (each with 2 contacts, a server, authority claims and an application)")
	seed := fs.Uint64("seed", 1, "random seed, for repeatable data")
	if err := parseFlags(fs, args, getenv, stderr); err != nil {
		return err
	}
	if *n < 1 || *n > 10_000_000 {
		return fmt.Errorf("%w: --organisations must be from 1 to 10000000", errUsage)
	}
	db, err := openStore(ctx, *dataDir, *database)
	if err != nil {
		return err
	}
	defer db.Close()
	start := time.Now()
	if err := db.SeedDirectory(ctx, store.Audit{Actor: "seed"}, *n, *seed); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "seeded %d organisations in %s\n", *n, time.Since(start).Round(time.Millisecond))
	return nil
}
