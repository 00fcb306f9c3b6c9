package handlers

import (
	"net/http"

	"github.com/trustframe/trustframe/federation"
	"github.com/trustframe/trustframe/views"
)

// Simulate answers POST /api/references/role-metadata-policies/simulate.
func (h *Policies) Simulate(w http.ResponseWriter, r *http.Request) {
	var in federation.SimulateInput
	if err := Decode(w, r, &in); err != nil {
		WriteError(w, r, err)
		return
	}
	pol, md, err := h.Simulator.Simulate(r.Context(), in)
	if err != nil {
		WriteError(w, r, err)
		return
	}
	WriteJSON(w, http.StatusOK, map[string]any{"Policy": pol, "Metadata": md})
}

// TryIt is Reference Data > Role metadata policies > Try it: the same
// simulation as a form.
func (h *Policies) TryIt(w http.ResponseWriter, r *http.Request) {
	roles, err := h.Simulator.Roles(r.Context())
	if err != nil {
		WriteError(w, r, err)
		return
	}
	p := views.NewTryItPage("openid_relying_party", "{}", nil, roles)
	status := http.StatusOK
	if r.Method == http.MethodPost {
		if err := r.ParseForm(); err != nil {
			WriteError(w, r, CodeBadForm.New("The form could not be read."))
			return
		}
		f := r.PostForm
		p = views.NewTryItPage(f.Get("EntityType"), f.Get("Metadata"), f["Role"], roles)
		pol, md, err := h.Simulator.Simulate(r.Context(), federation.FormInput(p.EntityType, p.Metadata, p.Selected))
		switch {
		case err == nil:
			p.Simulated(pol, md)
		case AsError(err).Status >= 500:
			WriteError(w, r, err)
			return
		default:
			status = http.StatusUnprocessableEntity
			p.Refused(entityTypeWords(FieldMap(err)), AsError(err).Message)
		}
	}
	Render(w, r, status, views.TryIt(h.Shell(r, "Try role metadata policies", "reference", views.Crumb{Label: "Reference Data", Href: "/references"},
		views.Crumb{Label: "Role metadata policies", Href: "/references/role-metadata-policies"}, views.Crumb{Label: "Try it"}), p))
}
