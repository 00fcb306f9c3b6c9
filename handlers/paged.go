package handlers

import (
	"net/url"
	"strconv"
)

// PageParams reads page and size; bad values, and either given twice
// (as signingAlg twice: which one counts depends on who reads), are a 400.
func PageParams(q url.Values) (page, size int, err error) {
	page, size = 0, 20
	if err := givenOnce(q, "page", "size"); err != nil {
		return 0, 0, err
	}
	if v := q.Get("page"); v != "" {
		page, err = strconv.Atoi(v)
		if err != nil || page < 0 || page > 10_000_000 {
			return 0, 0, CodeInvalidParameter.New("page must be a whole number from 0 to 10000000").WithFields(FieldError{Field: "page", Code: FieldInvalid, Message: "must be a whole number from 0 to 10000000"})
		}
	}
	if v := q.Get("size"); v != "" {
		size, err = strconv.Atoi(v)
		if err != nil || size < 1 || size > 200 {
			return 0, 0, CodeInvalidParameter.New("size must be from 1 to 200").WithFields(FieldError{Field: "size", Code: FieldInvalid, Message: "must be from 1 to 200"})
		}
	}
	return page, size, nil
}

// Paged is the envelope of large lists (docs/design.md §4).
type Paged[T any] struct {
	Content          []T  `json:"content"`
	PageNumber       int  `json:"pageNumber"`
	Size             int  `json:"size"`
	TotalSize        int  `json:"totalSize"`
	TotalPages       int  `json:"totalPages"`
	NumberOfElements int  `json:"numberOfElements"`
	Empty            bool `json:"empty"`
}

// NewPaged builds the envelope.
func NewPaged[T any](items []T, page, size, total int) Paged[T] {
	if items == nil {
		items = []T{}
	}
	return Paged[T]{Content: items, PageNumber: page, Size: size, TotalSize: total,
		TotalPages: (total + size - 1) / size, NumberOfElements: len(items), Empty: len(items) == 0}
}
