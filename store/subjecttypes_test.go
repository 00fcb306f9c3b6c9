package store_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/trustframe/trustframe/store"
)

// notForWebhooks are subject types written to the audit log on purpose
// outside store.WebhookSubjectTypes: records that an export was read
// (docs/decisions.md, "Webhook subject types"), not changes.
var notForWebhooks = []string{"AuditLog", "OrganisationList"}

// nonLiteralSubjects are the SubjectType expressions of audit records
// that are not string literals, and where their values come from (the
// test reads those too).
var nonLiteralSubjects = map[string]string{
	"k.Subject":      "RefKind{Subject: …} literals",
	"item.auditType": "store/acknowledgements.go ackItems: OrganisationCertificate, Document, Certification",
	"subject":        "store/groups.go: SuperUser and DataAdministrator",
	"subjectType":    "store/users.go takeOverFromGroups: SuperUser and DataAdministrator",
	"t.subject":      "store/groups.go groupTables: SuperUser and DataAdministrator",
}

// TestEverySubjectTypeIsOfferedToWebhooks reads every AuditRecord literal
// of the service's source (the store, handlers, web, commands) and every
// RefKind's Subject: each subject type written for a change is one a
// webhook can subscribe to, or one deliberately left out. A new subject
// type (or a new way of naming one) fails here until it is placed.
func TestEverySubjectTypeIsOfferedToWebhooks(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	written := map[string]string{} // subject type -> where
	fset := token.NewFileSet()
	err = filepath.WalkDir(root, func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if e.IsDir() && (strings.HasPrefix(e.Name(), ".") || e.Name() == "vendor" || e.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if e.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.CompositeLit)
			if !ok {
				return true
			}
			var typ string
			switch x := lit.Type.(type) {
			case *ast.Ident:
				typ = x.Name
			case *ast.SelectorExpr:
				typ = x.Sel.Name
			}
			field := map[string]string{"AuditRecord": "SubjectType", "RefKind": "Subject"}[typ]
			if field == "" {
				return true
			}
			for _, el := range lit.Elts {
				kv, ok := el.(*ast.KeyValueExpr)
				if !ok {
					continue
				}
				if k, ok := kv.Key.(*ast.Ident); !ok || k.Name != field {
					continue
				}
				where := fset.Position(kv.Pos()).String()
				if s, ok := kv.Value.(*ast.BasicLit); ok && s.Kind == token.STRING {
					v, _ := strconv.Unquote(s.Value)
					written[v] = where
					continue
				}
				expr := exprString(kv.Value)
				if _, ok := nonLiteralSubjects[expr]; !ok {
					t.Errorf("%s: SubjectType %s is not a literal the test knows; add it to nonLiteralSubjects with where its values come from", where, expr)
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, must := range []string{"Organisation", "ContactType", "DocumentType", "CertificationType", "AuditLog", "SuperUser"} {
		if _, ok := written[must]; !ok {
			t.Fatalf("the source scan did not find subject type %s: the scan is broken (%d found)", must, len(written))
		}
	}
	for st, where := range written {
		if !slices.Contains(store.WebhookSubjectTypes, st) && !slices.Contains(notForWebhooks, st) {
			t.Errorf("subject type %s (written at %s) is neither in store.WebhookSubjectTypes nor deliberately left out", st, where)
		}
	}
	for _, st := range store.WebhookSubjectTypes {
		if _, ok := written[st]; !ok {
			t.Errorf("store.WebhookSubjectTypes offers %s, which nothing writes", st)
		}
		if slices.Contains(notForWebhooks, st) {
			t.Errorf("%s is both offered and left out", st)
		}
	}
}

func exprString(e ast.Expr) string {
	switch x := e.(type) {
	case *ast.Ident:
		return x.Name
	case *ast.SelectorExpr:
		return exprString(x.X) + "." + x.Sel.Name
	}
	return "?"
}
