// Package views is the console's HTML: templ components (*.templ, with
// their generated *_templ.go committed) and the plain Go view models and
// wording they are built from. Views never query; handlers pass them
// domain values (docs/design.md §10).
package views
