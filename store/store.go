// Package store keeps trustframe's data in SQLite (modernc.org/sqlite, no
// cgo), the embedded default, or in PostgreSQL 15+ (pgx): one package, one
// code path on *sql.DB, the engine deciding the few dialect differences
// (engine.go).
//
// One exported method is one transaction; the audit record of a change is
// written in the same transaction as the change.
package store

import (
	"context"
	"crypto/rand"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"modernc.org/sqlite" // registers the "sqlite" driver

	"github.com/trustframe/trustframe/directory"
)

//go:embed migrations/*.sql migrations/postgres/*.sql
var migrationFS embed.FS

// The store returns the application layer's errors (package directory).
var (
	ErrNotFound = directory.ErrNotFound
	ErrConflict = directory.ErrConflict
	ErrBusy     = directory.ErrBusy
	ErrFull     = directory.ErrFull
)

// ConflictError is a change refused because of the state of the data: the
// application layer's.
type ConflictError = directory.ConflictError

// DB is the trustframe database.
type DB struct {
	db     *sql.DB
	engine Engine
	// lockTimeout is the busy timeout on PostgreSQL, as its lock_timeout.
	lockTimeout string
	path        string // the SQLite file, for messages
	now         func() time.Time
	lists       listCache
	stmts       sync.Map     // query text -> *sql.Stmt, for the hot paths
	idpVersion  atomic.Int64 // see IdentityProvidersVersion
	writes      atomic.Int64 // see WriteVersion
	dirWrites   atomic.Int64 // see DirectoryVersion
	seen        atomic.Int64 // the shared write count last seen (Sync, PostgreSQL)
	proofs      atomic.Int64 // UseProof calls (dpopproofs.go)
	roles       roleCache
	group       groupCommit                         // see recordGrouped
	signingKids readCache[string, string]           // CurrentSigningKid, readcache.go
	ssaSubjects readCache[[2]string, ssaSubject]    // SSASubject
	fedKey      readCache[struct{}, SigningKey]     // CurrentFederationKey
	markTypes   readCache[string, TrustMarkType]    // TrustMarkTypeByURL
	clients     readCache[string, directory.Client] // ClientOf (clients.go)
	clientKeys  readCache[[2]string, []clientKey]   // ClientKeys
	assertions  atomic.Int64                        // UseClientAssertion calls
	instance    string                              // this process's id in write notifications (PostgreSQL)
	notes       *listener                           // other instances' writes (PostgreSQL, notify.go)
	// The change feed (changes.go): commit wake-ups and the log's epoch.
	commits     commitSignal
	feedEpochMu sync.Mutex
	feedEpoch   string
	// The directory's CA signs a new CRL with it on every revocation of a
	// certificate it issued (pki.go); nil when --pki is off.
	crlSigner atomic.Pointer[directory.CRLSigner]
}

// prepared returns a prepared statement for a hot query: SQLite spends a
// good part of a small query parsing it, so the hot ones are parsed once.
func (d *DB) prepared(ctx context.Context, query string) (*sql.Stmt, error) {
	if st, ok := d.stmts.Load(query); ok {
		return st.(*sql.Stmt), nil
	}
	st, err := d.db.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	if prev, loaded := d.stmts.LoadOrStore(query, st); loaded {
		st.Close()
		return prev.(*sql.Stmt), nil
	}
	return st, nil
}

// hot is the database for hot queries run with queryOne and queryList:
// each query text is prepared once (prepared) and run through its
// statement.
func (d *DB) hot() hotQuerier { return hotQuerier{d} }

type hotQuerier struct{ d *DB }

func (h hotQuerier) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	st, err := h.d.prepared(ctx, query)
	if err != nil {
		return h.d.db.QueryContext(ctx, query, args...)
	}
	return st.QueryContext(ctx, args...)
}

func (h hotQuerier) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	return h.d.queryRow(ctx, query, args...)
}

// queryRow runs a hot single-row query through a prepared statement.
func (d *DB) queryRow(ctx context.Context, query string, args ...any) *sql.Row {
	st, err := d.prepared(ctx, query)
	if err != nil {
		return d.db.QueryRowContext(ctx, query, args...)
	}
	return st.QueryRowContext(ctx, args...)
}

// maxConns is the width of the connection pool.
const maxConns = 8

// Option changes how Open opens the database.
type Option func(*options)

type options struct {
	busyTimeout time.Duration
	now         func() time.Time
}

// WithClock sets the store's clock when Open is given none (a test that
// moves time on for a server webtest starts).
func WithClock(now func() time.Time) Option {
	return func(o *options) { o.now = now }
}

// WithBusyTimeout sets how long a write waits for SQLite's one writer (on
// PostgreSQL: for the write lock) before it fails as ErrBusy (default 10 s).
func WithBusyTimeout(d time.Duration) Option {
	return func(o *options) { o.busyTimeout = d }
}

// Open opens the database and applies every pending migration. path is
// either a SQLite file (created when needed) or a postgres:// URL
// (IsPostgresURL) of an existing PostgreSQL database.
func Open(ctx context.Context, path string, now func() time.Time, opts ...Option) (*DB, error) {
	o := options{busyTimeout: 10 * time.Second}
	for _, opt := range opts {
		opt(&o)
	}
	if now == nil {
		now = o.now
	}
	if now == nil {
		now = time.Now
	}
	if IsPostgresURL(path) {
		sqldb, err := openPostgres(ctx, path)
		if err != nil {
			return nil, err
		}
		d := &DB{db: sqldb, now: now, engine: Postgres, lockTimeout: strconv.FormatInt(o.busyTimeout.Milliseconds(), 10) + "ms", instance: NewID()}
		if err := d.migrate(ctx); err != nil {
			sqldb.Close()
			return nil, fmt.Errorf("%w (%s)", err, Where(path))
		}
		cfg, err := pgx.ParseConfig(path)
		if err != nil {
			sqldb.Close()
			return nil, err
		}
		if err := d.listen(ctx, cfg); err != nil {
			sqldb.Close()
			return nil, fmt.Errorf("store: listen for other instances' writes on %s: %v", Where(path), scrub(err, path))
		}
		d.prepareInTx(ctx)
		return d, nil
	}
	q := url.Values{}
	q.Add("_pragma", "foreign_keys(1)")
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", o.busyTimeout.Milliseconds()))
	q.Add("_pragma", "synchronous(FULL)")
	q.Set("_txlock", "immediate")
	// A small page cache per connection (512 KiB instead of SQLite's 2 MB):
	// the connections are kept open (below), and each would otherwise fill
	// its own copy of the same hot pages — at 100,000 organisations that was
	// 16 MB of the resident memory for no measurable gain; the operating
	// system's file cache serves the rest (docs/benchmarks.md "Memory").
	q.Add("_pragma", "cache_size(-512)")
	dsn := "file:" + path + "?" + q.Encode()
	sqldb, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	// SQLite has one writer; a small pool keeps readers concurrent while
	// writers queue on busy_timeout instead of failing. Every connection
	// stays open: a new one re-reads the schema, runs the pragmas and
	// re-prepares the hot statements, which under load cost more than the
	// queries (issue 19).
	sqldb.SetMaxOpenConns(maxConns)
	sqldb.SetMaxIdleConns(maxConns)
	sqldb.SetConnMaxIdleTime(0)
	sqldb.SetConnMaxLifetime(0)
	// The first connection switches a new file to WAL, and SQLite answers
	// that pragma BUSY at once, without waiting, while another process
	// opening the same new file holds its lock: try again for as long as
	// a write would wait (TestMigrationsRaceAppliesEachOnce).
	for deadline := time.Now().Add(o.busyTimeout); ; time.Sleep(10 * time.Millisecond) {
		err = sqldb.PingContext(ctx)
		if err == nil || !errors.Is(busy(err), ErrBusy) || time.Now().After(deadline) {
			break
		}
	}
	if err != nil {
		sqldb.Close()
		return nil, readOnly(fmt.Errorf("store: open %s: %w", path, err), path)
	}
	d := &DB{db: sqldb, now: now, path: path}
	if err := d.migrate(ctx); err != nil {
		sqldb.Close()
		return nil, readOnly(err, path)
	}
	d.prepareInTx(ctx)
	return d, nil
}

// CheckWritable writes a row and rolls it back: SQLite opens a file its
// user may not write read-only, without an error, and only the first
// write would fail. serve and doctor call it; commands that only read
// (backup, copy-database's source) do not need it.
func (d *DB) CheckWritable(ctx context.Context) error {
	if d.engine == Postgres {
		return nil
	}
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err = tx.ExecContext(ctx, `INSERT INTO schema_migrations(version, name, applied_at) VALUES (-1, 'write check', '')`); err != nil {
		return readOnly(fmt.Errorf("store: %w", err), d.path)
	}
	return nil
}

// readOnly says what to do when err is SQLite's refusal to write path (a
// read-only file, or a directory where it cannot make its -wal and -shm
// files); any other error is returned as it is.
func readOnly(err error, path string) error {
	var se *sqlite.Error
	if !errors.As(err, &se) || se.Code()&0xff != 8 { // SQLITE_READONLY
		return err
	}
	return fmt.Errorf("%w: the user running trustframe cannot write it; make %s, its -wal and -shm files and the directory %s writable by that user",
		err, filepath.Base(path), filepath.Dir(path))
}

// prepareInTx prepares the statements that run inside write transactions
// (insertAudit, insertTrustMark) while nothing else holds a connection: prepared later, in
// the transaction, they would need a second connection from the pool.
// A failure only leaves them unprepared (insertAudit then prepares on the
// transaction's own connection each time).
func (d *DB) prepareInTx(ctx context.Context) {
	for _, q := range []string{auditInsert, auditIfKeyActive, trustMarkInsert} {
		_, _ = d.prepared(ctx, q)
	}
}

// Close closes the database.
func (d *DB) Close() error {
	d.stopListening()
	d.WaitBackground()
	d.stmts.Range(func(_, v any) bool { v.(*sql.Stmt).Close(); return true })
	return d.db.Close()
}

// SQL exposes the handle for the session store and tests.
func (d *DB) SQL() *sql.DB { return d.db }

// migrationDir holds an engine's migrations: SQLite's in migrations/,
// PostgreSQL's in migrations/postgres/, with the same numbers and names
// (TestMigrationsSameOnBothEngines).
func migrationDir(e Engine) string {
	if e == Postgres {
		return "migrations/postgres"
	}
	return "migrations"
}

// MigrationNames lists an engine's migration files in order.
func MigrationNames(e Engine) ([]string, error) {
	names, err := fs.Glob(migrationFS, migrationDir(e)+"/*.sql")
	if err != nil {
		return nil, err
	}
	for i, n := range names {
		names[i] = strings.TrimPrefix(n, migrationDir(e)+"/")
	}
	sort.Strings(names)
	return names, nil
}

func (d *DB) migrate(ctx context.Context) error {
	run := d.tx
	var vacuum func() error
	if d.engine == Postgres {
		// Every instance may start at once: one session lock makes the
		// others wait, then find the migrations applied.
		conn, err := d.db.Conn(ctx)
		if err != nil {
			return fmt.Errorf("store: migrations: %w", err)
		}
		defer conn.Close()
		if _, err := conn.ExecContext(ctx, `SELECT pg_advisory_lock(?)`, migrateLockKey); err != nil {
			return fmt.Errorf("store: migrations lock: %w", err)
		}
		defer conn.ExecContext(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock(?)`, migrateLockKey)
		run = func(ctx context.Context, fn func(*sql.Tx) error) error {
			tx, err := conn.BeginTx(ctx, nil)
			if err != nil {
				return err
			}
			if err := fn(tx); err != nil {
				_ = tx.Rollback()
				return err
			}
			return tx.Commit()
		}
		// A migration may rewrite organisations (0026 does), which
		// empties its visibility map: until a vacuum fills it again the
		// list's index-only scans (0027) read a table row for each index
		// entry, and autovacuum may not come for a long while.
		vacuum = func() error {
			_, err := conn.ExecContext(ctx, `VACUUM (ANALYZE) organisations`)
			return err
		}
		if err := run(ctx, func(tx *sql.Tx) error {
			_, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
				version BIGINT PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)`)
			return err
		}); err != nil {
			return fmt.Errorf("store: migrations table: %w", err)
		}
	} else if _, err := d.db.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)`); err != nil {
		return fmt.Errorf("store: migrations table: %w", err)
	}
	names, err := MigrationNames(d.engine)
	if err != nil {
		return err
	}
	if err := d.refuseNewer(ctx, names); err != nil {
		return err
	}
	applied := 0
	for _, base := range names {
		num, _, ok := strings.Cut(base, "_")
		version, err := strconv.Atoi(num)
		if !ok || err != nil {
			return fmt.Errorf("store: migration %s: name must start with a number and _", base)
		}
		body, err := migrationFS.ReadFile(migrationDir(d.engine) + "/" + base)
		if err != nil {
			return err
		}
		err = run(ctx, func(tx *sql.Tx) error {
			var n int
			if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM schema_migrations WHERE version = ?`, version).Scan(&n); err != nil {
				return err
			}
			if n > 0 {
				return nil
			}
			if _, err := tx.ExecContext(ctx, string(body)); err != nil {
				return fmt.Errorf("store: migration %s: %w", base, err)
			}
			applied++
			_, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations(version, name, applied_at) VALUES (?, ?, ?)`,
				version, base, d.stamp())
			return err
		})
		if err != nil {
			return err
		}
	}
	if applied > 0 && vacuum != nil {
		if err := vacuum(); err != nil {
			return fmt.Errorf("store: vacuum after migrations: %w", err)
		}
	}
	return nil
}

// ErrNewerDatabase is a database a newer release has migrated: it holds a
// migration this binary does not know, so its schema is not the one the
// code was written for.
var ErrNewerDatabase = errors.New("store: the database is newer than this trustframe")

// refuseNewer refuses a database whose last applied migration is past the
// last one this binary embeds (names, in order), before anything is
// applied or served.
func (d *DB) refuseNewer(ctx context.Context, names []string) error {
	if len(names) == 0 {
		return nil
	}
	last := names[len(names)-1]
	num, _, _ := strings.Cut(last, "_")
	known, err := strconv.Atoi(num)
	if err != nil {
		return fmt.Errorf("store: migration %s: name must start with a number and _", last)
	}
	var version int64
	var name string
	err = d.db.QueryRowContext(ctx, `SELECT version, name FROM schema_migrations ORDER BY version DESC LIMIT 1`).Scan(&version, &name)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("store: migrations: %w", err)
	}
	if version > int64(known) {
		return fmt.Errorf("%w: it is at migration %s, and this trustframe knows migrations up to %s: a newer release has used it; run that release (or a newer one), or restore a backup made before the upgrade",
			ErrNewerDatabase, name, last)
	}
	return nil
}

// Migrations lists the applied migrations in order.
func (d *DB) Migrations(ctx context.Context) ([]string, error) {
	return queryList(ctx, d.db, scanString, `SELECT name FROM schema_migrations ORDER BY version`)
}

// busy marks SQLite's SQLITE_BUSY and SQLITE_LOCKED as ErrBusy, and
// SQLITE_FULL as ErrFull; PostgreSQL's serialisation failures and
// deadlocks as ErrBusy, a full disk as ErrFull.
func busy(err error) error {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch pe.Code {
		case "40001", "40P01", "55P03": // serialization_failure, deadlock_detected, lock_not_available
			return fmt.Errorf("%w: %v", ErrBusy, err)
		case "53100", "53200": // disk_full, out_of_memory
			return fmt.Errorf("%w: %v", ErrFull, err)
		}
		return err
	}
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() & 0xff {
		case 5, 6: // SQLITE_BUSY, SQLITE_LOCKED
			return fmt.Errorf("%w: %v", ErrBusy, err)
		case 13: // SQLITE_FULL
			return fmt.Errorf("%w: %v", ErrFull, err)
		}
	}
	return err
}

// tx runs fn in one immediate (write) transaction. On PostgreSQL it first
// takes the write lock (writeLockKey), so write transactions run one at a
// time across every instance, as SQLite's do.
func (d *DB) tx(ctx context.Context, fn func(*sql.Tx) error) error {
	err := d.commit(ctx, true, fn)
	if errors.Is(err, errUnchanged) {
		return nil // rolled back: there was nothing to write
	}
	return err
}

// commit runs fn in a write transaction; directory says whether it may
// change what is derived from the directory (the participants list, the
// federation list): a transaction that only appends audit records does not.
func (d *DB) commit(ctx context.Context, directory bool, fn func(*sql.Tx) error) error {
	tx, err := d.db.BeginTx(ctx, nil)
	if err != nil {
		return busy(fmt.Errorf("store: begin: %w", err))
	}
	if d.engine == Postgres {
		// The notification goes out at commit: other instances then drop
		// what they cached (notify.go).
		if _, err := tx.ExecContext(ctx, `SELECT set_config('lock_timeout', ?, true), pg_advisory_xact_lock(?), pg_notify('`+writesChannel+`', ?)`,
			d.lockTimeout, writeLockKey, d.instance); err != nil {
			_ = tx.Rollback()
			return busy(fmt.Errorf("store: write lock: %w", err))
		}
	}
	var version int64
	if d.engine == Postgres && directory {
		// Other instances compare it before using a cache (Sync).
		if err := tx.QueryRowContext(ctx, `UPDATE store_version SET n = n + 1 WHERE id = 1 RETURNING n`).Scan(&version); err != nil {
			_ = tx.Rollback()
			return busy(fmt.Errorf("store: version: %w", err))
		}
	}
	if err := fn(tx); err != nil {
		_ = tx.Rollback()
		return busy(err)
	}
	if err := tx.Commit(); err != nil {
		return busy(fmt.Errorf("store: commit: %w", err))
	}
	d.writes.Add(1)
	if directory {
		d.dirWrites.Add(1)
	}
	for seen := d.seen.Load(); version > seen && !d.seen.CompareAndSwap(seen, version); seen = d.seen.Load() {
	}
	d.commits.fire()
	return nil
}

// Sync makes the next answers of this instance see every directory write
// committed before it, by any instance: on PostgreSQL it reads the shared
// write count (one indexed row) and, when another instance has written
// since this one last looked, drops every cache as a notification would
// (notify.go). Notifications alone arrive a moment after the commit; Sync
// closes that gap for the reads that use a cache. Nothing on SQLite (one
// process).
func (d *DB) Sync(ctx context.Context) {
	if d.engine != Postgres {
		return
	}
	var n int64
	if err := d.db.QueryRowContext(ctx, `SELECT n FROM store_version WHERE id = 1`).Scan(&n); err != nil {
		return // the read that follows meets the same error, and says it
	}
	if seen := d.seen.Load(); n > seen && d.seen.CompareAndSwap(seen, n) {
		d.remoteWrite()
	}
}

// WriteVersion changes with every write this process commits: a cache of
// something read from the store holds while it stays the same.
func (d *DB) WriteVersion() int64 { return d.writes.Load() }

// DirectoryVersion counts the committed transactions that may have changed
// the directory itself, leaving out those that only appended audit records
// (SSA issuance, sign-ins): what an answer derived from the whole directory
// is checked against.
func (d *DB) DirectoryVersion() int64 { return d.dirWrites.Load() }

func (d *DB) stamp() string { return d.now().UTC().Format(time.RFC3339Nano) }

func parseStamp(s string) time.Time {
	t, _ := time.Parse(time.RFC3339Nano, s)
	return t
}

// Ping checks the database answers (readiness).
func (d *DB) Ping(ctx context.Context) error { return d.db.PingContext(ctx) }

// ErrNotOnThisEngine is an operation the engine does not offer (a
// PostgreSQL database is backed up with pg_dump, not by trustframe).
var ErrNotOnThisEngine = errors.New("store: not available on this database engine")

// Backup writes a consistent copy of the database to path (VACUUM INTO),
// while the service keeps running. path must not exist or be an empty
// file. SQLite only.
func (d *DB) Backup(ctx context.Context, path string) error {
	if d.engine == Postgres {
		return ErrNotOnThisEngine
	}
	if _, err := d.db.ExecContext(ctx, `VACUUM INTO ?`, path); err != nil {
		return fmt.Errorf("store: backup to %s: %w", path, err)
	}
	// The copy forgets the change feed's epoch: restored, it makes a new
	// one, so every cursor handed out before is refused (410) instead of
	// resolving to audit ids the restored log reuses for other changes,
	// and webhook-ids (which carry the epoch) are never reused either
	// (docs/decisions.md, "Backups and the change feed").
	cp, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(5000)")
	if err != nil {
		return fmt.Errorf("store: backup to %s: %w", path, err)
	}
	defer cp.Close()
	if _, err := cp.ExecContext(ctx, `DELETE FROM change_feed WHERE name = 'epoch'`); err != nil {
		return fmt.Errorf("store: backup to %s: forget the feed epoch: %w", path, err)
	}
	return cp.Close()
}

// IntegrityCheck runs SQLite's quick check of the whole database file and
// returns an error naming what it found when the file is damaged.
// On PostgreSQL, which checks its own pages, it checks the database
// answers.
func (d *DB) IntegrityCheck(ctx context.Context) error {
	if d.engine == Postgres {
		if err := d.db.PingContext(ctx); err != nil {
			return fmt.Errorf("store: integrity check: %w", err)
		}
		return nil
	}
	var check string
	if err := d.db.QueryRowContext(ctx, "PRAGMA quick_check").Scan(&check); err != nil {
		return fmt.Errorf("store: integrity check: %w", err)
	}
	if check != "ok" {
		return fmt.Errorf("store: integrity check: %s", check)
	}
	return nil
}

// UndeliveredMessages counts the outbox messages SMTP has not taken.
func (d *DB) UndeliveredMessages(ctx context.Context) (int, error) {
	var n int
	if err := d.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM outbox WHERE delivered = 0`).Scan(&n); err != nil {
		return 0, fmt.Errorf("store: outbox: %w", err)
	}
	return n, nil
}

// FieldError is a refusal about one field that only the store can judge
// (an unknown flag, a duplicate issuer): the application layer's.
type FieldError = directory.FieldError

// NewID returns a random (version 4) UUID.
func NewID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// commitSignal wakes whoever waits for the next commit of this process
// (long-polls of the change feed, the webhook deliverer). The zero value
// is ready.
type commitSignal struct {
	mu sync.Mutex
	ch chan struct{}
}

func (c *commitSignal) wait() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ch == nil {
		c.ch = make(chan struct{})
	}
	return c.ch
}

func (c *commitSignal) fire() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ch != nil {
		close(c.ch)
		c.ch = nil
	}
}

// NextCommit is closed when this process next commits a write. Take it
// before reading, then wait on it: a commit between the two still wakes
// the waiter. Writes of other processes on the same database do not close
// it; waiters re-read on a bounded interval as well.
func (d *DB) NextCommit() <-chan struct{} { return d.commits.wait() }
