package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"net"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"
)

// Engine is the database engine behind a DB (docs/design.md, "Engines").
type Engine int

const (
	// SQLite is the embedded default: one file in the data directory.
	SQLite Engine = iota
	// Postgres is PostgreSQL 15 or later, through pgx.
	Postgres
)

func (e Engine) String() string {
	if e == Postgres {
		return "postgres"
	}
	return "sqlite"
}

// Engine reports which engine the database runs on.
func (d *DB) Engine() Engine { return d.engine }

// IsPostgresURL reports whether database names a PostgreSQL database
// (postgres:// or postgresql://) rather than a SQLite file.
func IsPostgresURL(database string) bool {
	return strings.HasPrefix(database, "postgres://") || strings.HasPrefix(database, "postgresql://")
}

// ErrUnavailable is a database that cannot be reached (PostgreSQL down or
// the network to it): nothing changed, and the same request succeeds once
// it is back. It is an ErrBusy, so callers that retry on one retry on both.
var ErrUnavailable error = unavailable{}

type unavailable struct{}

func (unavailable) Error() string        { return "store: the database is unavailable" }
func (unavailable) Is(target error) bool { return target == ErrBusy }

// Where names a PostgreSQL URL for messages: host, port and database,
// never the user's password.
func Where(database string) string {
	cfg, err := pgx.ParseConfig(database)
	if err != nil {
		return "PostgreSQL (unparsable URL)"
	}
	return fmt.Sprintf("PostgreSQL at %s (database %q)", net.JoinHostPort(cfg.Host, strconv.Itoa(int(cfg.Port))), cfg.Database)
}

// writeLockKey is the advisory lock every PostgreSQL write transaction
// takes first: writes are serialised across every instance as SQLite
// serialises them, so every rule that relies on one writer (Exclusive
// claims, If-Match, idempotency keys, the caches' versions) holds as is.
const writeLockKey = 0x7472757374 // "trust"

// migrateLockKey is the session advisory lock held while migrations run.
const migrateLockKey = 0x6d69677261 // "migra"

// openPostgres opens a PostgreSQL database through pgx's database/sql
// driver, wrapped so that the store's SQLite-flavoured SQL runs unchanged
// where the two dialects differ only in spelling (see pgRewrite).
func openPostgres(ctx context.Context, database string) (*sql.DB, error) {
	cfg, err := pgx.ParseConfig(database)
	if err != nil {
		return nil, fmt.Errorf("store: %s: %v", Where(database), scrub(err, database))
	}
	sqldb := sql.OpenDB(&pgConnector{inner: stdlib.GetConnector(*cfg), password: cfg.Password})
	sqldb.SetMaxOpenConns(2 * maxConns)
	sqldb.SetMaxIdleConns(2 * maxConns)
	pctx, cancel := context.WithTimeout(ctx, connectTimeout)
	defer cancel()
	if err := sqldb.PingContext(pctx); err != nil {
		sqldb.Close()
		return nil, fmt.Errorf("store: cannot reach %s: %v", Where(database), scrub(err, database))
	}
	return sqldb, nil
}

// connectTimeout bounds the first connection at start: an unreachable
// database is an error at once, not a hang.
const connectTimeout = 10 * time.Second

// scrub removes a URL's password from an error's text.
func scrub(err error, database string) string {
	msg := err.Error()
	if cfg, perr := pgx.ParseConfig(database); perr == nil && cfg.Password != "" {
		msg = strings.ReplaceAll(msg, cfg.Password, "***")
	}
	return msg
}

// pgConnector hands out pgx connections that rewrite queries (cached per
// query text) and report lost connections as ErrUnavailable.
type pgConnector struct {
	inner    driver.Connector
	password string
}

func (c *pgConnector) Connect(ctx context.Context) (driver.Conn, error) {
	cn, err := c.inner.Connect(ctx)
	if err != nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)) {
		return nil, err // the request went away, not the database
	}
	if err != nil {
		msg := err.Error()
		if c.password != "" {
			msg = strings.ReplaceAll(msg, c.password, "***")
		}
		return nil, fmt.Errorf("%w: %s", ErrUnavailable, msg)
	}
	return &pgConn{c: cn.(*stdlib.Conn)}, nil
}

func (c *pgConnector) Driver() driver.Driver { return c.inner.Driver() }

type pgConn struct{ c *stdlib.Conn }

// rewritten caches pgRewrite per query text (queries are constants or
// built from a few constants, so the cache stays small).
var rewritten sync.Map

func rw(q string) string {
	if r, ok := rewritten.Load(q); ok {
		return r.(string)
	}
	r := pgRewrite(q)
	rewritten.Store(q, r)
	return r
}

func (p *pgConn) Prepare(q string) (driver.Stmt, error) {
	return p.PrepareContext(context.Background(), q)
}
func (p *pgConn) PrepareContext(ctx context.Context, q string) (driver.Stmt, error) {
	st, err := p.c.PrepareContext(ctx, rw(q))
	return st, lost(err)
}
func (p *pgConn) Close() error { return p.c.Close() }
func (p *pgConn) Begin() (driver.Tx, error) {
	return p.BeginTx(context.Background(), driver.TxOptions{})
}
func (p *pgConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	tx, err := p.c.BeginTx(ctx, opts)
	return tx, lost(err)
}
func (p *pgConn) ExecContext(ctx context.Context, q string, args []driver.NamedValue) (driver.Result, error) {
	res, err := p.c.ExecContext(ctx, rw(q), args)
	return res, lost(err)
}
func (p *pgConn) QueryContext(ctx context.Context, q string, args []driver.NamedValue) (driver.Rows, error) {
	rows, err := p.c.QueryContext(ctx, rw(q), args)
	return rows, lost(err)
}
func (p *pgConn) Ping(ctx context.Context) error         { return lost(p.c.Ping(ctx)) }
func (p *pgConn) ResetSession(ctx context.Context) error { return p.c.ResetSession(ctx) }
func (p *pgConn) CheckNamedValue(nv *driver.NamedValue) error {
	// The schema keeps SQLite's 0/1 integers for yes/no columns.
	if b, ok := nv.Value.(bool); ok {
		nv.Value = int64(0)
		if b {
			nv.Value = int64(1)
		}
		return nil
	}
	// PostgreSQL's text holds no NUL and only valid UTF-8, where SQLite
	// takes any bytes: such a string (only ever a client's mistake) is
	// made valid, so a lookup finds nothing and a write keeps the rest,
	// instead of the query failing.
	if str, ok := nv.Value.(string); ok && (strings.IndexByte(str, 0) >= 0 || !utf8.ValidString(str)) {
		nv.Value = strings.ReplaceAll(strings.ToValidUTF8(str, "\uFFFD"), "\x00", "\uFFFD")
	}
	return p.c.CheckNamedValue(nv)
}

// lostError is a connection lost mid-request: it is an ErrUnavailable and
// keeps what database/sql needs to retry on another connection.
type lostError struct{ err error }

func (e *lostError) Error() string { return ErrUnavailable.Error() + ": " + e.err.Error() }
func (e *lostError) Unwrap() []error {
	return []error{ErrUnavailable, e.err}
}

// lost marks errors of a connection (not of a query) as ErrUnavailable.
func lost(err error) error {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err // the request went away (or ran out of time), not the database
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch {
		case pgErr.Code == "57P01" || pgErr.Code == "57P02" || pgErr.Code == "57P03" || strings.HasPrefix(pgErr.Code, "08"):
			return &lostError{err}
		}
		return err
	}
	var netErr net.Error
	if errors.Is(err, driver.ErrBadConn) || errors.As(err, &netErr) || pgconn.SafeToRetry(err) {
		return &lostError{err}
	}
	if strings.Contains(err.Error(), "conn closed") || strings.Contains(err.Error(), "unexpected EOF") {
		return &lostError{err}
	}
	return err
}

// pgRewrite turns the store's SQL (SQLite's dialect) into PostgreSQL's:
// ? and ?N placeholders become $N (outside literals), INSERT OR IGNORE
// becomes ON CONFLICT DO NOTHING, INDEXED BY goes, COLLATE NOCASE becomes lower() (the
// columns are COLLATE "C", so lower() folds ASCII letters only, exactly
// as NOCASE does), group_concat becomes string_agg and char() chr().
func pgRewrite(q string) string {
	if strings.Contains(q, "INSERT OR IGNORE INTO") {
		q = strings.Replace(q, "INSERT OR IGNORE INTO", "INSERT INTO", 1)
		q = strings.TrimRight(q, " \t\n;") + " ON CONFLICT DO NOTHING"
	}
	// An index hint for SQLite's planner; PostgreSQL's plans its own.
	q = indexedBy.ReplaceAllString(q, "")
	q = strings.ReplaceAll(q, "group_concat(", "string_agg(")
	q = strings.ReplaceAll(q, "char(31)", "chr(31)")
	for {
		i := strings.Index(q, " COLLATE NOCASE")
		if i < 0 {
			break
		}
		start := exprStart(q, i)
		q = q[:start] + "lower(" + q[start:i] + ")" + q[i+len(" COLLATE NOCASE"):]
	}
	var b strings.Builder
	b.Grow(len(q) + 16)
	n := 0
	inStr, inIdent, inComment := false, false, false
	for i := 0; i < len(q); i++ {
		ch := q[i]
		switch {
		case inComment:
			if ch == '\n' {
				inComment = false
			}
		case inStr:
			if ch == '\'' {
				inStr = false
			}
		case inIdent:
			if ch == '"' {
				inIdent = false
			}
		case ch == '\'':
			inStr = true
		case ch == '"':
			inIdent = true
		case ch == '-' && i+1 < len(q) && q[i+1] == '-':
			inComment = true
		case ch == '?':
			j := i + 1
			for j < len(q) && q[j] >= '0' && q[j] <= '9' {
				j++
			}
			if j > i+1 {
				b.WriteByte('$')
				b.WriteString(q[i+1 : j])
				i = j - 1
				continue
			}
			n++
			b.WriteByte('$')
			b.WriteString(strconv.Itoa(n))
			continue
		}
		b.WriteByte(ch)
	}
	return b.String()
}

var indexedBy = regexp.MustCompile(`\s+INDEXED BY \w+`)

// exprStart finds where the expression ending at end begins: an
// identifier (a.b) or a function call / parenthesised expression.
func exprStart(q string, end int) int {
	i := end
	if i > 0 && q[i-1] == ')' {
		depth := 0
		for i > 0 {
			i--
			if q[i] == ')' {
				depth++
			} else if q[i] == '(' {
				depth--
				if depth == 0 {
					break
				}
			}
		}
	}
	for i > 0 && isIdent(q[i-1]) {
		i--
	}
	return i
}

func isIdent(c byte) bool {
	return c == '_' || c == '.' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
