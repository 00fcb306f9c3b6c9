package handlers

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/trustframe/trustframe/federation"
	"github.com/trustframe/trustframe/formats"
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
	p := views.TryItPage{EntityTypes: federation.EntityTypes, EntityType: "openid_relying_party", Metadata: "{}"}
	status := http.StatusOK
	if r.Method == http.MethodPost {
		if err := r.ParseForm(); err != nil {
			WriteError(w, r, CodeBadForm.New("The form could not be read."))
			return
		}
		p.EntityType, p.Metadata, p.Selected = r.PostForm.Get("EntityType"), r.PostForm.Get("Metadata"), r.PostForm["Role"]
		in := federation.SimulateInput{EntityType: p.EntityType, Metadata: json.RawMessage(p.Metadata)}
		if strings.TrimSpace(p.Metadata) == "" {
			in.Metadata = nil
		} else if _, deep := formats.JSONTooDeep(in.Metadata); !deep && !json.Valid(in.Metadata) {
			// (Too deep is valid or not, simulate refuses it by its depth.)
			in.Metadata = json.RawMessage(`"not json"`)
		}
		for _, s := range p.Selected {
			d, role, _ := strings.Cut(s, "/")
			in.Roles = append(in.Roles, federation.SimulateRole{AuthorisationDomain: d, Role: role})
		}
		pol, md, err := h.Simulator.Simulate(r.Context(), in)
		if err != nil {
			e := AsError(err)
			if e.Status >= 500 {
				WriteError(w, r, err)
				return
			}
			status = http.StatusUnprocessableEntity
			for _, fe := range e.Fields {
				switch fe.Field {
				case "Roles", "EntityType", "Metadata":
					if p.FieldErrors == nil {
						p.FieldErrors = map[string]string{}
					}
					p.FieldErrors[fe.Field] = fe.Message
				default:
					p.Errors = append(p.Errors, fe.Field+": "+fe.Message)
				}
			}
			if len(e.Fields) == 0 {
				p.Errors = append(p.Errors, e.Message)
			}
		} else {
			pb, _ := json.MarshalIndent(pol, "", "  ")
			mb, _ := json.MarshalIndent(md, "", "  ")
			p.Policy, p.Result = string(pb), string(mb)
		}
	}
	{
		roles, err := h.Store.ListDomainRoles(r.Context(), "")
		if err != nil {
			WriteError(w, r, err)
			return
		}
		for _, ro := range roles {
			if ro.Type != "Federation" {
				continue
			}
			v := ro.AuthorisationDomain + "/" + ro.Name
			p.RoleOpts = append(p.RoleOpts, views.Option{Value: v, Label: v, Selected: contains(p.Selected, v)})
		}
	}
	Render(w, r, status, views.TryIt(h.Shell(r, "Try role metadata policies", "reference", views.Crumb{Label: "Reference Data", Href: "/references"},
		views.Crumb{Label: "Role metadata policies", Href: "/references/role-metadata-policies"}, views.Crumb{Label: "Try it"}), p))
}
