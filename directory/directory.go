// Package directory is the application layer of trustframe: the domain
// types, the one vocabulary of refusal (Error, FieldError, ConflictError
// and the sentinels), the field rules, and the use cases, one file per
// resource. It speaks neither HTTP nor SQL: handlers decode a request and
// call one use case; the store implements the interfaces declared here and
// returns these errors (docs/design.md §1).
package directory

// Actor is who makes a change, as the audit log names them, and why when
// the change needs a reason (a reactivation); the reason is kept in the
// audit record's summary.
type Actor struct {
	Actor  string
	Reason string
	// Within are the organisations an Organisation Administrator acts in
	// (docs/design.md §19); nil for the directory's administrators.
	Within []string
}

// Check is a precondition the caller puts on the current version of a
// record before it is changed (the API's If-Match). The store runs it
// inside the write's transaction, once the fields have passed.
type Check[T any] func(current T) error
