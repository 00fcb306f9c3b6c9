package web_test

import "net/http/httptest"

func newRecorder() *httptest.ResponseRecorder { return httptest.NewRecorder() }
