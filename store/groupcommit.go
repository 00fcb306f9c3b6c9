package store

import (
	"context"
	"database/sql"
	"sync"
)

// groupCommit writes the audit records of high-rate audited reads (SSA
// issuance, sign-ins and other events that change nothing else) in shared
// transactions: a record that arrives while another
// batch commits waits for the next batch, and that batch is one
// transaction and one fsync for every record waiting. Each caller is
// answered only after the transaction holding its record has committed
// (synchronous=FULL: durable), or with its error — never before. With one
// writer and one fsync per record, concurrent SSAs queued on SQLite's write
// lock; batched, throughput grows with the requests in flight (issue 19).
//
// There is no goroutine of its own: the first caller to find no batch
// committing leads one batch — every record pending then, its own among
// them — and hands the lead to the oldest record still waiting.
type groupCommit struct {
	mu      sync.Mutex
	leading bool
	pending []*groupReq
}

type groupReq struct {
	rec      AuditRecord
	signedBy bool          // rec is an SSA's, written only while its key is Active (insertAudit)
	done     chan error    // the batch's outcome, or refused
	lead     chan struct{} // this caller commits the next batch
	refused  error         // this record was not written (ErrKeyRetired)
}

// recordGrouped writes r and returns once it is durable; signedBy as for
// insertAudit.
func (d *DB) recordGrouped(ctx context.Context, r AuditRecord, signedBy bool) error {
	g := &d.group
	req := &groupReq{rec: r, signedBy: signedBy, done: make(chan error, 1), lead: make(chan struct{}, 1)}
	g.mu.Lock()
	g.pending = append(g.pending, req)
	if !g.leading {
		g.leading = true
		req.lead <- struct{}{}
	}
	g.mu.Unlock()
	// A caller that goes away still waits: its record may be in the batch
	// being committed, and a leader must finish its batch for the others.
	select {
	case err := <-req.done:
		return err
	case <-req.lead:
		d.commitBatch(context.WithoutCancel(ctx))
		return <-req.done
	}
}

// commitBatch commits every pending record in one transaction, answers
// their callers, and passes the lead on.
func (d *DB) commitBatch(ctx context.Context) {
	g := &d.group
	g.mu.Lock()
	batch := g.pending
	g.pending = nil
	g.mu.Unlock()

	err := d.commit(ctx, false, func(tx *sql.Tx) error {
		for _, req := range batch {
			written, err := d.insertAudit(ctx, tx, req.rec, req.signedBy)
			if err != nil {
				return err
			}
			req.refused = nil
			if !written {
				req.refused = ErrKeyRetired
			}
		}
		return nil
	})
	for _, req := range batch {
		if err == nil && req.refused != nil {
			req.done <- req.refused
			continue
		}
		req.done <- err
	}

	g.mu.Lock()
	if len(g.pending) > 0 {
		g.pending[0].lead <- struct{}{}
	} else {
		g.leading = false
	}
	g.mu.Unlock()
}
