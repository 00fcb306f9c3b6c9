package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/trustframe/trustframe/store"
)

// cmdCopyDatabase moves an embedded deployment to PostgreSQL: every row of
// the SQLite file into an empty PostgreSQL database (migrated first), in
// one transaction, then checks row counts and the audit log. Stop serve
// first: writes made during the copy would not be in it. The KEK and the
// other files of the data directory stay where they are.
func cmdCopyDatabase(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("copy-database", flag.ContinueOnError)
	from := fs.String("from", "", "the SQLite database file to copy (e.g. ./trustframe-data/trustframe.db)")
	to := fs.String("to", "", "postgres:// URL of an empty PostgreSQL 15+ database")
	if err := parseFlags(fs, args, getenv, stderr); err != nil {
		return err
	}
	if *from == "" || *to == "" {
		return fmt.Errorf("%w: --from FILE and --to postgres://… are both required", errUsage)
	}
	if !store.IsPostgresURL(*to) {
		return fmt.Errorf("%w: --to must be a postgres:// URL", errUsage)
	}
	if _, err := os.Stat(*from); err != nil {
		return fmt.Errorf("%w: --from: %v", errUsage, err)
	}
	lock, err := takeServingLock(*from, true)
	if errors.Is(err, errLockHeld) {
		return fmt.Errorf("trustframe serve is running on %s: stop it first (rows it writes during the copy would not be in the copy); nothing was changed", *from)
	}
	defer lock.release()
	src, err := store.Open(ctx, *from, time.Now)
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := store.Open(ctx, *to, time.Now)
	if err != nil {
		return err
	}
	defer dst.Close()
	fmt.Fprintf(stdout, "copying %s to %s\n", *from, store.Where(*to))
	last := time.Time{}
	rep, err := src.CopyTo(ctx, dst, func(table string, done, total int) {
		if done == total || time.Since(last) > time.Second {
			fmt.Fprintf(stdout, "  %s: %d/%d rows\n", table, done, total)
			last = time.Now()
		}
	})
	if errors.Is(err, store.ErrTargetNotEmpty) {
		return fmt.Errorf("%v: copy-database only fills an empty database (nothing was changed)", err)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "copied and verified: %d tables, %d rows, the audit log's %d records identical.\n"+
		"Start serve with --database set to the same URL (and the same --data-dir or --kek-file: the KEK is not in the database).\n",
		rep.Tables, rep.Rows, rep.AuditRecords)
	return nil
}
