// Package storetest chooses the database engine of the store and handler
// tests: SQLite files by default; with TRUSTFRAME_TEST_POSTGRES set to the
// URL of a PostgreSQL server (a role that may create databases), every
// test gets a fresh database of its own there, dropped at its cleanup.
// .ci/test runs the store and handler tests both ways.
package storetest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" driver
)

// Env names the variable that selects PostgreSQL.
const Env = "TRUSTFRAME_TEST_POSTGRES"

// Postgres reports whether the tests run on PostgreSQL.
func Postgres() bool { return os.Getenv(Env) != "" }

var (
	adminOnce sync.Once
	admin     *sql.DB
	adminErr  error
)

// Path returns the database of one test for store.Open: a SQLite file in
// a temporary directory, or the URL of a new, empty PostgreSQL database.
func Path(t testing.TB) string {
	t.Helper()
	server := os.Getenv(Env)
	if server == "" {
		return filepath.Join(t.TempDir(), "t.db")
	}
	adminOnce.Do(func() {
		admin, adminErr = sql.Open("pgx", server)
		if adminErr == nil {
			admin.SetMaxOpenConns(4)
		}
	})
	if adminErr != nil {
		t.Fatalf("storetest: %s: %v", Env, adminErr)
	}
	b := make([]byte, 8)
	rand.Read(b)
	name := "t_" + hex.EncodeToString(b)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := admin.ExecContext(ctx, `CREATE DATABASE `+name); err != nil {
		t.Fatalf("storetest: create database: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if _, err := admin.ExecContext(ctx, `DROP DATABASE IF EXISTS `+name+` WITH (FORCE)`); err != nil {
			t.Errorf("storetest: drop database %s: %v", name, err)
		}
	})
	u, err := url.Parse(server)
	if err != nil {
		t.Fatalf("storetest: %s: %v", Env, err)
	}
	u.Path = "/" + name
	return u.String()
}
