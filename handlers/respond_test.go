package handlers

import "testing"

func TestBestAccept(t *testing.T) {
	cases := map[string]string{
		"":                                      "text/html",
		"application/json":                      "application/json",
		"text/html,application/json;q=0.9":      "text/html",
		"application/json, text/html;q=0.5":     "application/json",
		"*/*":                                   "text/html",
		"application/*":                         "application/json",
		"text/html;q=0, application/json;q=0.1": "application/json",
		"image/png":                             "text/html",
	}
	for h, want := range cases {
		if got := bestAccept(h, "text/html", "application/json"); got != want {
			t.Errorf("%q: %s, want %s", h, got, want)
		}
	}
}
