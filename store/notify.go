package store

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
)

// writesChannel is the PostgreSQL notification channel of committed
// writes: every write transaction notifies it (delivered at commit, never
// on rollback) with the writing instance's id.
const writesChannel = "trustframe_writes"

// listener keeps this instance's caches true to writes committed by other
// instances on the same PostgreSQL database (docs/design.md, "Engines"):
// on each notification from another instance it drops what the store
// caches (list totals and page anchors, roles), moves WriteVersion and
// IdentityProvidersVersion on, which empties every cache keyed on them,
// and wakes the change feed's waiting requests.
type listener struct {
	cancel context.CancelFunc
	done   chan struct{}
}

// listen starts the listener on a connection of its own; it returns once
// LISTEN is in effect, so nothing committed after Open returns is missed.
func (d *DB) listen(ctx context.Context, cfg *pgx.ConnConfig) error {
	conn, err := d.listenConn(ctx, cfg)
	if err != nil {
		return err
	}
	lctx, cancel := context.WithCancel(context.Background())
	d.notes = &listener{cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(d.notes.done)
		wait := 100 * time.Millisecond
		for {
			if conn != nil {
				d.wait(lctx, conn)
				conn.Close(context.Background())
				conn = nil
			}
			if lctx.Err() != nil {
				return
			}
			select {
			case <-lctx.Done():
				return
			case <-time.After(wait):
			}
			if conn, err = d.listenConn(lctx, cfg); err != nil {
				conn = nil
				wait = min(2*wait, 5*time.Second)
				continue
			}
			wait = 100 * time.Millisecond
			// Notifications may have been missed while the connection was down.
			d.remoteWrite()
		}
	}()
	return nil
}

func (d *DB) listenConn(ctx context.Context, cfg *pgx.ConnConfig) (*pgx.Conn, error) {
	conn, err := pgx.ConnectConfig(ctx, cfg.Copy())
	if err != nil {
		return nil, err
	}
	if _, err := conn.Exec(ctx, "LISTEN "+writesChannel); err != nil {
		conn.Close(context.Background())
		return nil, err
	}
	return conn, nil
}

// wait handles notifications until the connection fails or ctx ends.
func (d *DB) wait(ctx context.Context, conn *pgx.Conn) {
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return
		}
		if n.Payload != d.instance {
			d.remoteWrite()
		}
	}
}

// remoteWrite forgets what another instance's write may have changed.
func (d *DB) remoteWrite() {
	d.lists.reset()
	d.roles.invalidate()
	d.idpVersion.Add(1)
	d.writes.Add(1)
	d.dirWrites.Add(1) // not known to be audit-only: derived answers are rebuilt
	d.commits.fire()   // the change feed's long polls read again
}

func (d *DB) stopListening() {
	if d.notes != nil {
		d.notes.cancel()
		<-d.notes.done
	}
}
