package handlers

import (
	"context"
	"encoding/csv"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/trustframe/trustframe/directory"
	"github.com/trustframe/trustframe/store"
)

// csvCell keeps a spreadsheet from reading a cell as a formula (CSV
// injection): a cell directory.NeedsFormulaGuard names gets a leading
// apostrophe, which the import takes off (directory.Unguard).
func csvCell(s string) string {
	if directory.NeedsFormulaGuard(s) {
		return "'" + s
	}
	return s
}

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

// auditExport records a finished download; the file has gone out, so a
// failure to record it is logged loudly rather than answered.
func auditExport(r *http.Request, log *slog.Logger, record func(context.Context, store.AuditRecord) error, rec store.AuditRecord) {
	if err := record(context.WithoutCancel(r.Context()), rec); err != nil {
		log.Error("a CSV download is not in the audit log", "err", err, "actor", rec.Actor, "summary", rec.Summary)
	}
}

// exportFilters is how an export's filters read in the audit log.
func exportFilters(r *http.Request) string {
	if r.URL.RawQuery == "" {
		return "no filter"
	}
	return r.URL.RawQuery
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
	header := []string{"OrganisationId", "OrganisationName", "LegalEntityName", "RegistrationNumber", "CountryOfRegistration",
		"AddressLine1", "AddressLine2", "City", "Postcode", "Status", "Flags", "Roles", "CreatedOn", "UpdatedOn"}
	n := csvStream(w, LoggerFrom(r.Context()), "organisations", header, func(row func([]string) error) error {
		return h.Store.EachOrganisation(r.Context(), f, func(o store.Organisation, flags, roles []string) error {
			o = h.showOrg(o)
			for i := range flags {
				flags[i] = csvCell(flags[i])
			}
			for i := range roles {
				roles[i] = csvCell(roles[i])
			}
			return row([]string{o.OrganisationID, csvCell(o.OrganisationName), csvCell(o.LegalEntityName), csvCell(o.RegistrationNumber),
				csvCell(o.CountryOfRegistration), csvCell(o.AddressLine1), csvCell(o.AddressLine2), csvCell(o.City), csvCell(o.Postcode), o.Status,
				strings.Join(flags, "; "), strings.Join(roles, "; "), o.CreatedOn.UTC().Format(time.RFC3339), o.UpdatedOn.UTC().Format(time.RFC3339)})
		})
	})
	// Who took the directory away, and which part of it.
	auditExport(r, LoggerFrom(r.Context()), h.Store.RecordEvent, store.AuditRecord{Actor: PrincipalFrom(r.Context()).Email, Action: "export",
		SubjectType: "OrganisationList", SubjectID: "*", Summary: fmt.Sprintf("%d organisations as CSV; %s", n, exportFilters(r))})
}
