package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/trustframe/trustframe/directory"
)

// Webhooks and their deliveries are the application layer's
// (directory/webhooks.go).
type (
	Webhook         = directory.Webhook
	WebhookDelivery = directory.WebhookDelivery
)

// WebhookSubjectTypes are the subject types a webhook can subscribe to
// (directory.WebhookSubjectTypes).
var WebhookSubjectTypes = directory.WebhookSubjectTypes

const webhookCols = `webhook_id, url, description, status, secret_sealed, paused_reason, created_at, updated_at`

func scanWebhook(row rowScanner) (Webhook, error) {
	var w Webhook
	var created, updated string
	err := row.Scan(&w.WebhookID, &w.URL, &w.Description, &w.Status, &w.SealedSecret, &w.PausedReason, &created, &updated)
	w.CreatedOn, w.UpdatedOn = parseStamp(created), parseStamp(updated)
	return w, err
}

func webhookTypes(ctx context.Context, q querier, ws []Webhook) error {
	for i := range ws {
		types, err := queryList(ctx, q, scanString, `SELECT subject_type FROM webhook_subject_types WHERE webhook_id = ? ORDER BY subject_type`, ws[i].WebhookID)
		if err != nil {
			return err
		}
		ws[i].SubjectTypes = types
	}
	return nil
}

// ListWebhooks lists every webhook, oldest first.
func (d *DB) ListWebhooks(ctx context.Context) ([]Webhook, error) {
	return d.webhooksWhere(ctx, d.db, `1=1`)
}

// PausedWebhooks lists the webhooks the deliverer paused (for the home page).
func (d *DB) PausedWebhooks(ctx context.Context) ([]Webhook, error) {
	return d.webhooksWhere(ctx, d.db, `status = 'Paused'`)
}

func (d *DB) webhooksWhere(ctx context.Context, q querier, where string, args ...any) ([]Webhook, error) {
	// The rows are closed before webhookTypes reads more on q (one
	// connection when q is a transaction).
	out, err := queryList(ctx, q, scanWebhook, `SELECT `+webhookCols+` FROM webhooks WHERE `+where+` ORDER BY created_at, webhook_id`, args...)
	if err != nil {
		return nil, fmt.Errorf("store: webhooks: %w", err)
	}
	return out, webhookTypes(ctx, q, out)
}

// GetWebhook returns one webhook (ErrNotFound when there is none).
func (d *DB) GetWebhook(ctx context.Context, id string) (Webhook, error) {
	ws, err := d.webhooksWhere(ctx, d.db, `webhook_id = ?`, id)
	if err != nil {
		return Webhook{}, err
	}
	if len(ws) == 0 {
		return Webhook{}, ErrNotFound
	}
	return ws[0], nil
}

func getWebhookTx(ctx context.Context, tx *sql.Tx, id string) (Webhook, error) {
	w, err := queryOne(ctx, tx, scanWebhook, `SELECT `+webhookCols+` FROM webhooks WHERE webhook_id = ?`, id)
	if err != nil {
		return Webhook{}, err
	}
	ws := []Webhook{w}
	if err := webhookTypes(ctx, tx, ws); err != nil {
		return Webhook{}, err
	}
	return ws[0], nil
}

func setWebhookTypes(ctx context.Context, tx *sql.Tx, id string, types []string) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM webhook_subject_types WHERE webhook_id = ?`, id); err != nil {
		return err
	}
	for _, t := range types {
		if _, err := tx.ExecContext(ctx, `INSERT INTO webhook_subject_types(webhook_id, subject_type) VALUES (?, ?)`, id, t); err != nil {
			return err
		}
	}
	return nil
}

// sameTypes reports whether a and b hold the same subject types, in any order.
func sameTypes(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	sort.Strings(a)
	sort.Strings(b)
	return slices.Equal(slices.Compact(a), slices.Compact(b))
}

// webhookSummary is what the audit log says of a webhook. Of its URL only
// the scheme and host: a receiver's URL may carry a token in its path or
// query, and Data Administrators read the audit log (docs/decisions.md).
func webhookSummary(w Webhook) string {
	types := slices.Clone(w.SubjectTypes)
	sort.Strings(types)
	return fmt.Sprintf("Url: %s; SubjectTypes: %s; Status: %s", urlOrigin(w.URL), strings.Join(types, ", "), w.Status)
}

// urlChange notes a change of URL the summaries' origins do not show.
func urlChange(from, to string) string {
	if from != to && urlOrigin(from) == urlOrigin(to) {
		return " (Url path or query changed)"
	}
	return ""
}

// urlOrigin is scheme://host[:port] of raw, without user, path, query or
// fragment.
func urlOrigin(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return "(not a URL)"
	}
	return u.Scheme + "://" + u.Host
}

// CreateWebhook stores a new webhook (its id is made here unless given) with its sealed
// secret. problems are what the caller found wrong with its fields: when
// there are any nothing is written.
func (d *DB) CreateWebhook(ctx context.Context, a Audit, w Webhook, problems directory.Fields) (Webhook, error) {
	if w.WebhookID == "" {
		w.WebhookID = NewID()
	}
	err := d.tx(ctx, func(tx *sql.Tx) error {
		if err := problems.Err(); err != nil {
			return err
		}
		now := d.stamp()
		if _, err := tx.ExecContext(ctx, `INSERT INTO webhooks(webhook_id, url, description, status, secret_sealed, created_at, updated_at)
			VALUES (?, ?, ?, ?, ?, ?, ?)`, w.WebhookID, w.URL, w.Description, w.Status, w.SealedSecret, now, now); err != nil {
			return err
		}
		if err := setWebhookTypes(ctx, tx, w.WebhookID, w.SubjectTypes); err != nil {
			return err
		}
		return d.writeAudit(ctx, tx, AuditRecord{Actor: a.Actor, Action: "create", SubjectType: "Webhook", SubjectID: w.WebhookID, Summary: webhookSummary(w)})
	})
	if err != nil {
		return Webhook{}, fmt.Errorf("store: create webhook: %w", err)
	}
	return d.GetWebhook(ctx, w.WebhookID)
}

// UpdateWebhook replaces the writable fields (Url, Description,
// SubjectTypes, Status) as directory.Webhook.Applied says. problems are
// what the caller found wrong with its fields: Applied's rule against the
// stored webhook is added to them and when any remains nothing is
// written; check runs on the stored webhook once the fields pass (If-Match).
// Setting a Paused webhook Active resumes its deliveries.
func (d *DB) UpdateWebhook(ctx context.Context, a Audit, w Webhook, problems directory.Fields, check directory.Check[Webhook]) (Webhook, error) {
	err := d.tx(ctx, func(tx *sql.Tx) error {
		problems := directory.Fields{}.Merge(problems)
		cur, err := getWebhookTx(ctx, tx, w.WebhookID)
		if err != nil {
			return err
		}
		w = w.Applied(cur, problems)
		if err := problems.Err(); err != nil {
			return err
		}
		if err := runCheck(check, cur); err != nil {
			return err
		}
		if w.URL == cur.URL && w.Description == cur.Description && w.Status == cur.Status && sameTypes(w.SubjectTypes, cur.SubjectTypes) {
			// Nothing to write: the failure clock of an Active webhook runs on.
			return errUnchanged
		}
		reason, failing := cur.PausedReason, "failing_since"
		if w.Status != "Paused" {
			reason, failing = "", "0"
		}
		if _, err := tx.ExecContext(ctx, `UPDATE webhooks SET url = ?, description = ?, status = ?, paused_reason = ?, failing_since = `+failing+`, updated_at = ?
			WHERE webhook_id = ?`, w.URL, w.Description, w.Status, reason, d.stamp(), w.WebhookID); err != nil {
			return err
		}
		if err := setWebhookTypes(ctx, tx, w.WebhookID, w.SubjectTypes); err != nil {
			return err
		}
		return d.writeAudit(ctx, tx, AuditRecord{Actor: a.Actor, Action: updateAction(cur.Status, w.Status), SubjectType: "Webhook", SubjectID: w.WebhookID,
			Summary: webhookSummary(cur) + " -> " + webhookSummary(w) + urlChange(cur.URL, w.URL)})
	})
	if err != nil {
		return Webhook{}, err
	}
	return d.GetWebhook(ctx, w.WebhookID)
}

// RotateWebhookSecret replaces the sealed secret of a webhook.
func (d *DB) RotateWebhookSecret(ctx context.Context, a Audit, id string, sealed []byte) (Webhook, error) {
	err := d.tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE webhooks SET secret_sealed = ?, updated_at = ? WHERE webhook_id = ?`, sealed, d.stamp(), id)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return ErrNotFound
		}
		return d.writeAudit(ctx, tx, AuditRecord{Actor: a.Actor, Action: "rotate_secret", SubjectType: "Webhook", SubjectID: id, Summary: "secret replaced"})
	})
	if err != nil {
		return Webhook{}, err
	}
	return d.GetWebhook(ctx, id)
}

// DeleteWebhook removes a webhook and its delivery log, and returns it as
// it was.
func (d *DB) DeleteWebhook(ctx context.Context, a Audit, id string) (Webhook, error) {
	var cur Webhook
	err := d.tx(ctx, func(tx *sql.Tx) error {
		var err error
		if cur, err = getWebhookTx(ctx, tx, id); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM webhook_deliveries WHERE webhook_id = ?`, id); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM webhook_subject_types WHERE webhook_id = ?`, id); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM webhooks WHERE webhook_id = ?`, id); err != nil {
			return err
		}
		return d.writeAudit(ctx, tx, AuditRecord{Actor: a.Actor, Action: "delete", SubjectType: "Webhook", SubjectID: id, Summary: webhookSummary(cur)})
	})
	return cur, err
}

const deliveryCols = `d.delivery_id, d.webhook_id, d.status, d.attempts, d.last_status_code, d.last_error, d.last_duration_ms, d.last_attempt_at,
	d.next_attempt_at, d.created_at, a.id, a.at, a.actor, a.action, a.subject_type, a.subject_id, a.organisation_id`

// scanDelivery reads deliveryCols, the change in the change feed's epoch.
func scanDelivery(epoch string) func(rowScanner) (WebhookDelivery, error) {
	return func(row rowScanner) (WebhookDelivery, error) {
		var dl WebhookDelivery
		var created, at string
		var next int64
		var r AuditRecord
		err := row.Scan(&dl.DeliveryID, &dl.WebhookID, &dl.Status, &dl.Attempts, &dl.LastStatusCode, &dl.LastError, &dl.LastDurationMs, &dl.LastAttemptOn,
			&next, &created, &r.ID, &at, &r.Actor, &r.Action, &r.SubjectType, &r.SubjectID, &r.OrganisationID)
		dl.CreatedOn = parseStamp(created)
		r.At = parseStamp(at)
		dl.Change = ChangeOf(epoch, r)
		if dl.Status == "Pending" && next > 0 {
			dl.NextAttemptOn = time.UnixMilli(next).UTC().Format(time.RFC3339)
		}
		return dl, err
	}
}

// ListWebhookDeliveries returns one page of a webhook's delivery log,
// newest first, and the total.
func (d *DB) ListWebhookDeliveries(ctx context.Context, webhookID string, page, size int) ([]WebhookDelivery, int, error) {
	epoch, err := d.FeedEpoch(ctx)
	if err != nil {
		return nil, 0, err
	}
	var total int
	if err := d.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM webhook_deliveries WHERE webhook_id = ?`, webhookID).Scan(&total); err != nil {
		return nil, 0, fmt.Errorf("store: webhook deliveries: %w", err)
	}
	out, err := queryList(ctx, d.db, scanDelivery(epoch), `SELECT `+deliveryCols+` FROM webhook_deliveries d JOIN audit_log a ON a.id = d.audit_id
		WHERE d.webhook_id = ? ORDER BY d.delivery_id DESC LIMIT ? OFFSET ?`, webhookID, size, page*size)
	if err != nil {
		return nil, 0, fmt.Errorf("store: webhook deliveries: %w", err)
	}
	return out, total, nil
}

// GetWebhookDelivery returns one delivery of a webhook.
func (d *DB) GetWebhookDelivery(ctx context.Context, webhookID string, deliveryID int64) (WebhookDelivery, error) {
	epoch, err := d.FeedEpoch(ctx)
	if err != nil {
		return WebhookDelivery{}, err
	}
	return queryOne(ctx, d.db, scanDelivery(epoch), `SELECT `+deliveryCols+` FROM webhook_deliveries d JOIN audit_log a ON a.id = d.audit_id
		WHERE d.webhook_id = ? AND d.delivery_id = ?`, webhookID, deliveryID)
}

// Redeliver queues a delivery again, now, with a fresh retry window
// (whatever its status: a Delivered one is sent once more): 24 h from its
// next attempt, and the backoff starts again at its first step.
func (d *DB) Redeliver(ctx context.Context, a Audit, webhookID string, deliveryID int64) (WebhookDelivery, error) {
	err := d.tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE webhook_deliveries SET status = 'Pending', next_attempt_at = 0, first_attempt_at = 0, window_attempts = 0, lease_owner = '', lease_until = 0
			WHERE webhook_id = ? AND delivery_id = ?`, webhookID, deliveryID)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return ErrNotFound
		}
		return d.writeAudit(ctx, tx, AuditRecord{Actor: a.Actor, Action: "redeliver", SubjectType: "Webhook", SubjectID: webhookID,
			Summary: fmt.Sprintf("delivery %d queued again", deliveryID)})
	})
	if err != nil {
		return WebhookDelivery{}, err
	}
	return d.GetWebhookDelivery(ctx, webhookID, deliveryID)
}

// WebhookTestAction is the audit action (and the Action of the change a
// test delivery carries: its body's type is "Webhook.test") of a test
// event a Super User sends to one webhook (docs/design.md §15).
const WebhookTestAction = "test"

// QueueTestDelivery queues one test event to the webhook id alone: an
// audit record (subject Webhook, action "test", the webhook's id, actor
// a.Actor) and one delivery of it, in one transaction. The outbox trigger
// also queues that record to every Active webhook subscribed to Webhook;
// those rows are removed again before the commit, so no other receiver
// ever sees a test meant for one. The delivery is then sent, signed and
// retried by the deliverer like any other. A webhook that is not Active is
// refused (directory.WebhookNotActive): the deliverer sends only an Active
// webhook's deliveries, so the test would wait unseen (docs/decisions.md,
// "Test events").
func (d *DB) QueueTestDelivery(ctx context.Context, a Audit, id string) (WebhookDelivery, error) {
	var deliveryID int64
	err := d.commit(ctx, false, func(tx *sql.Tx) error {
		w, err := getWebhookTx(ctx, tx, id)
		if err != nil {
			return err
		}
		if w.Status != "Active" {
			return directory.WebhookNotActive(w.Status)
		}
		at := d.stamp()
		var auditID int64
		if err := tx.QueryRowContext(ctx, auditInsert+` RETURNING id`, at, a.Actor, WebhookTestAction, "Webhook", id, "", "", "",
			"Url: "+urlOrigin(w.URL)).Scan(&auditID); err != nil {
			return fmt.Errorf("store: audit: %w", err)
		}
		// The outbox trigger queued the record to every Active webhook
		// subscribed to Webhook; only those rows are looked up (by the
		// (webhook_id, audit_id) key, not a scan of the whole log).
		if _, err := tx.ExecContext(ctx, `DELETE FROM webhook_deliveries WHERE audit_id = ?
			AND webhook_id IN (SELECT webhook_id FROM webhook_subject_types WHERE subject_type = 'Webhook')`, auditID); err != nil {
			return err
		}
		return tx.QueryRowContext(ctx, `INSERT INTO webhook_deliveries (webhook_id, audit_id, created_at) VALUES (?, ?, ?) RETURNING delivery_id`,
			id, auditID, at).Scan(&deliveryID)
	})
	if err != nil {
		return WebhookDelivery{}, err
	}
	return d.GetWebhookDelivery(ctx, id, deliveryID)
}

// DeliveriesAhead counts a webhook's Pending deliveries queued before
// deliveryID: a webhook's deliveries go out in order, so those are sent
// first. retryAt is the latest retry still to come among them (zero when
// none waits for one): a delivery that failed holds the ones behind it
// until its retry (ClaimDeliveries).
func (d *DB) DeliveriesAhead(ctx context.Context, webhookID string, deliveryID int64) (n int, retryAt time.Time, err error) {
	var next int64
	if err := d.db.QueryRowContext(ctx, `SELECT COUNT(*), COALESCE(MAX(CASE WHEN attempts > 0 AND next_attempt_at > ? THEN next_attempt_at ELSE 0 END), 0)
		FROM webhook_deliveries WHERE webhook_id = ? AND status = 'Pending' AND delivery_id < ?`, d.now().UnixMilli(), webhookID, deliveryID).Scan(&n, &next); err != nil {
		return 0, time.Time{}, fmt.Errorf("store: deliveries ahead: %w", err)
	}
	if next > 0 {
		retryAt = time.UnixMilli(next).UTC()
	}
	return n, retryAt, nil
}

// DueDelivery is a delivery a deliverer has claimed: what it needs to send it.
type DueDelivery struct {
	DeliveryID     int64
	Epoch          string // the feed's epoch: with DeliveryID, the webhook-id
	WebhookID      string
	URL            string
	SealedSecret   []byte
	Attempts       int   // attempts made before this one in this retry window (since the last Redeliver)
	FirstAttemptAt int64 // unix ms; 0: this is the first
	Change         Change
}

// ClaimDeliveries takes up to n deliveries that are due at now for owner,
// for lease: a conditional UPDATE that only a row nobody holds (or whose
// lease has run out) passes, so deliverers sharing the database never send
// the same delivery at once. Deliveries of webhooks that are not Active
// wait. A webhook has at most one delivery in flight: one holding a live
// lease gets nothing more, and one whose last attempt failed gets nothing
// until that retry is due (then its oldest due row, the retry, goes
// first), so a receiver that hangs holds one worker, not all of them.
func (d *DB) ClaimDeliveries(ctx context.Context, owner string, now time.Time, lease time.Duration, n int) ([]DueDelivery, error) {
	epoch, err := d.FeedEpoch(ctx)
	if err != nil {
		return nil, err
	}
	nowMs, until := now.UnixMilli(), now.Add(lease).UnixMilli()
	// Look before taking the write lock: most polls find nothing due.
	var due int
	if err := d.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM (SELECT 1 FROM webhook_deliveries d JOIN webhooks w ON w.webhook_id = d.webhook_id
		WHERE `+claimable+` LIMIT 1) x`, nowMs, nowMs, nowMs, nowMs, nowMs, nowMs).Scan(&due); err != nil {
		return nil, fmt.Errorf("store: due deliveries: %w", err)
	}
	if due == 0 {
		return nil, nil
	}
	var ids []int64
	err = d.tx(ctx, func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, `UPDATE webhook_deliveries SET lease_owner = ?, lease_until = ?
			WHERE delivery_id IN (
				SELECT d.delivery_id FROM webhook_deliveries d JOIN webhooks w ON w.webhook_id = d.webhook_id
				WHERE `+claimable+`
				ORDER BY d.next_attempt_at, d.delivery_id LIMIT ?)
			AND status = 'Pending' AND lease_until <= ?
			RETURNING delivery_id`, owner, until, nowMs, nowMs, nowMs, nowMs, nowMs, nowMs, n, nowMs)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var id int64
			if err := rows.Scan(&id); err != nil {
				return err
			}
			ids = append(ids, id)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("store: claim deliveries: %w", err)
	}
	// Oldest first, as SQLite returns them: PostgreSQL's RETURNING has no
	// order of its own.
	slices.Sort(ids)
	out := make([]DueDelivery, 0, len(ids))
	for _, id := range ids {
		var dd DueDelivery
		var r AuditRecord
		var at string
		err := d.db.QueryRowContext(ctx, `SELECT d.delivery_id, d.webhook_id, w.url, w.secret_sealed, d.window_attempts, d.first_attempt_at,
			a.id, a.at, a.actor, a.action, a.subject_type, a.subject_id, a.organisation_id
			FROM webhook_deliveries d JOIN webhooks w ON w.webhook_id = d.webhook_id JOIN audit_log a ON a.id = d.audit_id
			WHERE d.delivery_id = ?`, id).Scan(&dd.DeliveryID, &dd.WebhookID, &dd.URL, &dd.SealedSecret, &dd.Attempts, &dd.FirstAttemptAt,
			&r.ID, &at, &r.Actor, &r.Action, &r.SubjectType, &r.SubjectID, &r.OrganisationID)
		if errors.Is(err, sql.ErrNoRows) {
			continue // deleted with its webhook since
		}
		if err != nil {
			return nil, fmt.Errorf("store: claimed delivery: %w", err)
		}
		r.At = parseStamp(at)
		dd.Change = ChangeOf(epoch, r)
		dd.Epoch = epoch
		out = append(out, dd)
	}
	return out, nil
}

// claimable is the condition (on d, a delivery, and w, its webhook; six
// times the time now as arguments) of a row ClaimDeliveries may take: due,
// nobody's, of an Active webhook, the oldest due row of its webhook, and
// its webhook has no delivery in flight nor a failed one waiting for its
// retry.
const claimable = `d.status = 'Pending' AND d.next_attempt_at <= ? AND d.lease_until <= ? AND w.status = 'Active'
	AND d.delivery_id = (SELECT MIN(o.delivery_id) FROM webhook_deliveries o
		WHERE o.webhook_id = d.webhook_id AND o.status = 'Pending' AND o.next_attempt_at <= ? AND o.lease_until <= ?)
	AND NOT EXISTS (SELECT 1 FROM webhook_deliveries o WHERE o.webhook_id = d.webhook_id AND o.status = 'Pending'
		AND (o.lease_until > ? OR (o.attempts > 0 AND o.next_attempt_at > ?)))`

// NextDeliveryDue is when a pending delivery of an Active webhook can next
// be claimed (ok false when none is pending): for each webhook, its
// earliest due row, but not before its delivery in flight is done (its
// lease) nor before its failed delivery's retry.
func (d *DB) NextDeliveryDue(ctx context.Context) (at time.Time, ok bool, err error) {
	var next sql.NullInt64
	if err := d.db.QueryRowContext(ctx, `SELECT MIN(CASE WHEN blocked > due THEN blocked ELSE due END) FROM (
		SELECT MIN(CASE WHEN d.lease_until > d.next_attempt_at THEN d.lease_until ELSE d.next_attempt_at END) AS due,
			MAX(CASE WHEN d.attempts = 0 OR d.lease_until > d.next_attempt_at THEN d.lease_until ELSE d.next_attempt_at END) AS blocked
		FROM webhook_deliveries d JOIN webhooks w ON w.webhook_id = d.webhook_id
		WHERE d.status = 'Pending' AND w.status = 'Active' GROUP BY d.webhook_id) x`).Scan(&next); err != nil {
		return time.Time{}, false, fmt.Errorf("store: next delivery: %w", err)
	}
	if !next.Valid {
		return time.Time{}, false, nil
	}
	return time.UnixMilli(next.Int64), true, nil
}

// DeliveryOutcome is what one attempt came to.
type DeliveryOutcome struct {
	At         time.Time
	OK         bool // a 2xx
	StatusCode int  // 0: no answer
	Error      string
	Duration   time.Duration
	// NextAttempt is when to try again; zero: give up (Failed).
	NextAttempt time.Time
	// FirstAttemptAt is when the first attempt of this delivery was made.
	FirstAttemptAt time.Time
	// PauseAfter: a webhook whose attempts have all failed for this long
	// is Paused (its pending deliveries wait until it is Active again).
	PauseAfter time.Duration
}

// FinishDelivery records an attempt of a delivery owner holds (a lease
// lost meanwhile records nothing) and keeps the webhook's failure streak:
// a success ends it, and a streak longer than PauseAfter, or a delivery
// that gives up during a streak, pauses the webhook (audited, actor
// "trustframe").
func (d *DB) FinishDelivery(ctx context.Context, owner string, dd DueDelivery, o DeliveryOutcome) error {
	status, next := "Pending", o.NextAttempt.UnixMilli()
	switch {
	case o.OK:
		status, next = "Delivered", 0
	case o.NextAttempt.IsZero():
		status, next = "Failed", 0
	}
	return d.tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE webhook_deliveries SET status = ?, attempts = attempts + 1, window_attempts = window_attempts + 1, next_attempt_at = ?, first_attempt_at = ?,
			last_status_code = ?, last_error = ?, last_duration_ms = ?, last_attempt_at = ?, lease_owner = '', lease_until = 0
			WHERE delivery_id = ? AND lease_owner = ?`,
			status, next, o.FirstAttemptAt.UnixMilli(), o.StatusCode, o.Error, o.Duration.Milliseconds(), o.At.UTC().Format(time.RFC3339Nano), dd.DeliveryID, owner)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return nil // the lease ran out and someone else has it
		}
		if o.OK {
			_, err := tx.ExecContext(ctx, `UPDATE webhooks SET failing_since = 0 WHERE webhook_id = ?`, dd.WebhookID)
			return err
		}
		if _, err := tx.ExecContext(ctx, `UPDATE webhooks SET failing_since = ? WHERE webhook_id = ? AND failing_since = 0`, o.At.UnixMilli(), dd.WebhookID); err != nil {
			return err
		}
		var since int64
		var wstatus string
		if err := tx.QueryRowContext(ctx, `SELECT failing_since, status FROM webhooks WHERE webhook_id = ?`, dd.WebhookID).Scan(&since, &wstatus); err != nil {
			if errors.Is(err, sql.ErrNoRows) {
				return nil
			}
			return err
		}
		// Paused when the failures have lasted PauseAfter, or when a
		// delivery gives up (its retries ran out) with no success since.
		if wstatus != "Active" || (status != "Failed" && (o.PauseAfter <= 0 || o.At.Sub(time.UnixMilli(since)) < o.PauseAfter)) {
			return nil
		}
		reason := fmt.Sprintf("every delivery has failed since %s (last: %s)", time.UnixMilli(since).UTC().Format(time.RFC3339), lastFailure(o))
		if _, err := tx.ExecContext(ctx, `UPDATE webhooks SET status = 'Paused', paused_reason = ?, updated_at = ? WHERE webhook_id = ?`,
			reason, d.stamp(), dd.WebhookID); err != nil {
			return err
		}
		return d.writeAudit(ctx, tx, AuditRecord{Actor: "trustframe", Action: "pause", SubjectType: "Webhook", SubjectID: dd.WebhookID, Summary: "Status: Active -> Paused; " + reason})
	})
}

func lastFailure(o DeliveryOutcome) string {
	if o.StatusCode != 0 {
		return fmt.Sprintf("HTTP %d", o.StatusCode)
	}
	return o.Error
}
