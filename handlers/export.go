package handlers

import (
	"context"
	"encoding/csv"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/trustframe/trustframe/directory"
)

// csvStream writes a CSV download: the header row, then the rows each
// hands it, flushed every 1,000 rows. If each fails once the download has
// begun, the connection is broken off rather than handing over a file that
// looks whole.
func csvStream(w http.ResponseWriter, log *slog.Logger, name string, header []string, each func(row func([]string) error) error) int {
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", `attachment; filename="`+name+`-`+time.Now().UTC().Format("2006-01-02")+`.csv"`)
	w.Header().Set("Cache-Control", "no-store")
	cw := csv.NewWriter(w)
	_ = cw.Write(header)
	n := 0
	err := each(func(rec []string) error {
		if err := cw.Write(rec); err != nil {
			return err
		}
		if n++; n%1000 == 0 {
			cw.Flush()
			return cw.Error()
		}
		return nil
	})
	cw.Flush()
	if err == nil {
		err = cw.Error()
	}
	if err != nil {
		log.Error("CSV download broke off", "file", name, "err", err, "rows", n)
		panic(http.ErrAbortHandler)
	}
	return n
}

// recordExport writes who downloaded which list (rec's SubjectType) with
// which filters to the audit log once the file has gone out; rec's Summary
// says how much ("12 organisations"). A failure to record it is logged loudly rather
// than answered, since the download is already complete.
func recordExport(r *http.Request, record func(context.Context, directory.AuditRecord) error, rec directory.AuditRecord) {
	filters := r.URL.RawQuery
	if filters == "" {
		filters = "no filter"
	}
	rec.Actor, rec.Action, rec.SubjectID = PrincipalFrom(r.Context()).Email, "export", "*"
	rec.Summary += " as CSV; " + filters
	if err := record(context.WithoutCancel(r.Context()), rec); err != nil {
		LoggerFrom(r.Context()).Error("a CSV download is not in the audit log", "err", err, "actor", rec.Actor, "summary", rec.Summary)
	}
}

// ExportOrganisations streams every organisation that matches the list's
// search, filters and sort as CSV (GET /organisations/export.csv, and the
// same under /api): the "Download CSV" of the organisation list.
func (h *Organisations) ExportOrganisations(w http.ResponseWriter, r *http.Request) {
	f, err := h.orgFilter(r.Context(), r.URL.Query())
	if err != nil {
		WriteError(w, r, err)
		return
	}
	n := csvStream(w, LoggerFrom(r.Context()), "organisations", directory.ImportColumns, func(row func([]string) error) error {
		return h.List.Export(r.Context(), f, row)
	})
	recordExport(r, h.Log.Record, directory.AuditRecord{SubjectType: "OrganisationList", Summary: fmt.Sprintf("%d organisations", n)})
}
