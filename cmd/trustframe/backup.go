package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/trustframe/trustframe/store"
)

// cmdBackup copies the database consistently, even while serve runs. The
// KEK is not in the copy: keep it apart (a copy without it reveals no key).
func cmdBackup(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("backup", flag.ContinueOnError)
	dataDir := fs.String("data-dir", "./trustframe-data", "directory of the database")
	to := fs.String("to", "", "file to write the copy to (must not exist)")
	database := fs.String("database", "", databaseUsage)
	if err := parseFlags(fs, args, getenv, stderr); err != nil {
		return err
	}
	if err := checkDatabase(*database); err != nil {
		return err
	}
	if *database != "" {
		// PostgreSQL has its own tools for a consistent copy.
		return fmt.Errorf("%w: backup copies SQLite databases; this one is %s: back it up with PostgreSQL's tools, e.g. pg_dump --format=custom --file=trustframe.dump \"$TRUSTFRAME_DATABASE\" (restore with pg_restore), or the server's base backups; the KEK (%s) is not in the database: keep it apart",
			errUsage, store.Where(*database), filepath.Join(*dataDir, "kek.key"))
	}
	if *to == "" {
		return fmt.Errorf("%w: --to FILE is required", errUsage)
	}
	if _, err := os.Stat(*to); err == nil {
		return fmt.Errorf("%w: %s exists; choose a new file", errUsage, *to)
	} else if !errors.Is(err, iofsErrNotExist) {
		return err
	}
	if st, err := os.Stat(filepath.Dir(*to)); err != nil || !st.IsDir() {
		return fmt.Errorf("%w: --to %s: the directory %s does not exist; make it first", errUsage, *to, filepath.Dir(*to))
	}
	if _, err := os.Stat(filepath.Join(*dataDir, "trustframe.db")); err != nil {
		return fmt.Errorf("no database in %s: %w", *dataDir, err)
	}
	db, err := openStore(ctx, *dataDir, "")
	if err != nil {
		return err
	}
	defer db.Close()
	if err := db.Backup(ctx, *to); err != nil {
		return err
	}
	if err := os.Chmod(*to, 0o600); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "backed up %s to %s (the KEK is not in it: keep %s apart)\n", filepath.Join(*dataDir, "trustframe.db"), *to, filepath.Join(*dataDir, "kek.key"))
	return nil
}

var iofsErrNotExist = fs.ErrNotExist
