package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	iofs "io/fs"
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
	// Lstat, not Stat: a symbolic link, even one to nothing, is something
	// that exists, and the copy is never written through one.
	if st, err := os.Lstat(*to); err == nil && st.Mode()&iofs.ModeSymlink != 0 {
		return fmt.Errorf("%w: %s is a symbolic link; name a new file, not a link", errUsage, *to)
	} else if err == nil {
		return fmt.Errorf("%w: %s exists; choose a new file", errUsage, *to)
	} else if !errors.Is(err, iofs.ErrNotExist) {
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
	if err := backupTo(ctx, db, *to); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "backed up %s to %s (the KEK is not in it: keep %s apart)\n", filepath.Join(*dataDir, "trustframe.db"), *to, filepath.Join(*dataDir, "kek.key"))
	return nil
}

// backupTo makes the file itself, new (O_EXCL: never an existing file,
// nor through a symbolic link put there since the check) and 0600, and
// has SQLite fill it (VACUUM INTO takes an empty file). The file written
// must still be the one made; a copy that fails leaves nothing behind.
func backupTo(ctx context.Context, db *store.DB, to string) (err error) {
	f, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, iofs.ErrExist) {
		return fmt.Errorf("%w: %s exists; choose a new file", errUsage, to)
	}
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			os.Remove(to)
		}
	}()
	made, err := f.Stat()
	f.Close()
	if err != nil {
		return err
	}
	if err := db.Backup(ctx, to); err != nil {
		return err
	}
	if now, err := os.Lstat(to); err != nil || !os.SameFile(made, now) {
		return fmt.Errorf("backup: %s was replaced while the copy was written; the copy is not trustworthy", to)
	}
	return os.Chmod(to, 0o600)
}
