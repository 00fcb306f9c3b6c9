package web_test

import (
	"net/http/httptest"
	"net/url"
)

func newRecorder() *httptest.ResponseRecorder { return httptest.NewRecorder() }

func mustURL(s string) *url.URL {
	u, err := url.Parse(s)
	if err != nil {
		panic(err)
	}
	return u
}
