package web_test

import (
	"strings"
	"testing"

	"github.com/trustframe/trustframe/web/webtest"
)

// TestInvitationButtonSaysWhatItDoes: the Add Data Administrator form's
// button read "Save", though it sends an invitation by e-mail.
func TestInvitationButtonSaysWhatItDoes(t *testing.T) {
	env := webtest.Start(t, nil)
	c := webtest.Browser()
	webtest.SignIn(t, c, env.URL, "admin@example.com").Body.Close()
	_, doc := page(t, c, env.URL+"/references/data-administrators/new")
	if got := strings.TrimSpace(doc.Find("[data-testid=new-data-administrator-form] [data-testid=save]").Text()); got != "Send invitation" {
		t.Errorf("the button reads %q", got)
	}
}
