package store

import (
	"context"
	"database/sql"
	"sync"
)

// groupCommit writes the records of high-rate audited reads (SSA
// issuance, sign-ins and other events that change nothing else, and the
// trust marks the directory signs) in shared
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
	signedBy bool             // rec is an SSA's, written only while its key is Active (insertAudit)
	mark     *IssuedTrustMark // instead of rec: a trust mark's record (RecordTrustMark)
	done     chan error       // the batch's outcome, or refused
	lead     chan struct{}    // this caller commits the next batch
	refused  error            // this record was not written (ErrKeyRetired)
}

// recordGrouped writes r and returns once it is durable; signedBy as for
// insertAudit.
func (d *DB) recordGrouped(ctx context.Context, r AuditRecord, signedBy bool) error {
	return d.writeGrouped(ctx, &groupReq{rec: r, signedBy: signedBy})
}

// writeGrouped writes req's record in the next batch and returns once that
// batch has committed, with its error or req's refusal.
func (d *DB) writeGrouped(ctx context.Context, req *groupReq) error {
	g := &d.group
	req.done, req.lead = make(chan error, 1), make(chan struct{}, 1)
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
			if req.mark != nil {
				if err := d.insertTrustMark(ctx, tx, *req.mark); err != nil {
					return err
				}
				req.refused = nil
				continue
			}
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
