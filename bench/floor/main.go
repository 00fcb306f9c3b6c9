// Command floor is the yardstick of docs/benchmarks.md ("against the
// floor"): the least a server can do to answer trustframe's hottest reads
// from the same SQLite file with the same driver — bare net/http, no
// authentication, no middleware, keyset pagination, one prepared statement
// per query. trustframe's figures are read as ratios of its figures on the
// same machine at the same moment (bench/compare).
//
//	floor --db DATA_DIR/trustframe.db --addr 127.0.0.1:8091
//
// GET /api/organisations/{id}          one organisation (the columns trustframe returns)
// GET /api/organisations?after=ID&size=N  a page in name order, after the organisation ID
package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log"
	"net/http"
	"net/url"
	"os"
	"strconv"

	_ "modernc.org/sqlite"
)

type organisation struct {
	OrganisationID        string `json:"OrganisationId"`
	OrganisationName      string `json:"OrganisationName"`
	LegalEntityName       string `json:"LegalEntityName"`
	RegistrationNumber    string `json:"RegistrationNumber"`
	CountryOfRegistration string `json:"CountryOfRegistration"`
	AddressLine1          string `json:"AddressLine1"`
	AddressLine2          string `json:"AddressLine2"`
	City                  string `json:"City"`
	Postcode              string `json:"Postcode"`
	Status                string `json:"Status"`
	CreatedOn             string `json:"CreatedOn"`
	UpdatedOn             string `json:"UpdatedOn"`
}

const cols = `organisation_id, name, legal_entity_name, registration_number, country, address_line1, address_line2, city, postcode, status, created_on, updated_on`

func scan(row interface{ Scan(...any) error }) (organisation, error) {
	var o organisation
	err := row.Scan(&o.OrganisationID, &o.OrganisationName, &o.LegalEntityName, &o.RegistrationNumber, &o.CountryOfRegistration,
		&o.AddressLine1, &o.AddressLine2, &o.City, &o.Postcode, &o.Status, &o.CreatedOn, &o.UpdatedOn)
	return o, err
}

func main() {
	path := flag.String("db", "", "the trustframe database file (opened read-only)")
	addr := flag.String("addr", "127.0.0.1:8091", "listen address")
	flag.Parse()
	if *path == "" {
		fmt.Fprintln(os.Stderr, "floor: --db is required")
		os.Exit(2)
	}
	q := url.Values{}
	q.Add("_pragma", "busy_timeout(5000)")
	q.Add("_pragma", "query_only(1)")
	db, err := sql.Open("sqlite", "file:"+*path+"?"+q.Encode())
	if err != nil {
		log.Fatal(err)
	}
	db.SetMaxOpenConns(8)
	db.SetMaxIdleConns(8)
	ctx := context.Background()
	one, err := db.PrepareContext(ctx, `SELECT `+cols+` FROM organisations WHERE organisation_id = ?`)
	if err != nil {
		log.Fatal(err)
	}
	first, err := db.PrepareContext(ctx, `SELECT `+cols+` FROM organisations ORDER BY name COLLATE NOCASE, organisation_id LIMIT ?`)
	if err != nil {
		log.Fatal(err)
	}
	after, err := db.PrepareContext(ctx, `SELECT `+cols+` FROM organisations
		WHERE (name COLLATE NOCASE, organisation_id) > ((SELECT name FROM organisations WHERE organisation_id = ?1) COLLATE NOCASE, ?1)
		ORDER BY name COLLATE NOCASE, organisation_id LIMIT ?2`)
	if err != nil {
		log.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/organisations/{id}", func(w http.ResponseWriter, r *http.Request) {
		o, err := scan(one.QueryRowContext(r.Context(), r.PathValue("id")))
		if errors.Is(err, sql.ErrNoRows) {
			http.Error(w, "not found", http.StatusNotFound)
			return
		}
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(o)
	})
	mux.HandleFunc("GET /api/organisations", func(w http.ResponseWriter, r *http.Request) {
		size, _ := strconv.Atoi(r.URL.Query().Get("size"))
		if size <= 0 || size > 1000 {
			size = 20
		}
		var rows *sql.Rows
		var err error
		if a := r.URL.Query().Get("after"); a != "" {
			rows, err = after.QueryContext(r.Context(), a, size)
		} else {
			rows, err = first.QueryContext(r.Context(), size)
		}
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		defer rows.Close()
		list := []organisation{}
		for rows.Next() {
			o, err := scan(rows)
			if err != nil {
				http.Error(w, err.Error(), http.StatusInternalServerError)
				return
			}
			list = append(list, o)
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"content": list})
	})
	log.Printf("floor on http://%s", *addr)
	log.Fatal(http.ListenAndServe(*addr, mux))
}
