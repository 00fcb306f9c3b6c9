package web

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/trustframe/trustframe/changefeed"
	"github.com/trustframe/trustframe/directory"
	"github.com/trustframe/trustframe/federation"
	"github.com/trustframe/trustframe/federation/anchor"
	"github.com/trustframe/trustframe/handlers"
	"github.com/trustframe/trustframe/issuer"
	"github.com/trustframe/trustframe/lifecycle"
	"github.com/trustframe/trustframe/pki"
	"github.com/trustframe/trustframe/static"
	"github.com/trustframe/trustframe/store"
	"github.com/trustframe/trustframe/webhooks"
)

// routes is the whole HTTP surface of trustframe, in one place.
func (s *Server) routes() http.Handler {
	// The directory's CA for the use cases that issue and publish
	// certificates: nil while --pki is off (docs/design.md §18).
	caSource := func(context.Context) (*pki.CA, error) { return s.ca, nil }
	base := &handlers.Base{Flash: flasher{s.sessions}, BaseURL: s.cfg.BaseURL, DevIdP: s.idp != nil, Vocab: s.vocab}
	allowPrivate := s.allowPrivateIssuers()
	org := &handlers.Org{Base: base, Orgs: &directory.Organisations{Store: s.db, Vocab: s.vocab}, Flags: &directory.Flags{Store: s.db}}
	orgs := &handlers.Organisations{Org: org, List: &directory.OrganisationList{Store: s.db, Vocab: s.vocab}, Log: &directory.AuditLog{Store: s.db}, Store: s.db}
	contactTypes := &handlers.RefTypes{Base: base, Refs: &directory.References{Store: s.db, Kind: store.ContactTypes}, Title: "Contact types", Path: "/references/contact-types"}
	documentTypes := &handlers.RefTypes{Base: base, Refs: &directory.References{Store: s.db, Kind: store.DocumentTypes}, Title: "Document types", Path: "/references/document-types"}
	certificationTypes := &handlers.RefTypes{Base: base, Refs: &directory.References{Store: s.db, Kind: store.CertificationTypes}, Title: "Certification types", Path: "/references/certification-types"}
	contacts := &handlers.Contacts{Org: org, Contacts: &directory.Contacts{Store: s.db}, Types: contactTypes.Refs}
	// The directory as its participants' trust anchor (docs/design.md §13);
	// it also checks an Organisation Administrator's federation entity IDs.
	fedAnchor := &anchor.Directory{Store: s.db, TrustMarks: s.db, Keys: s.fedKeys,
		EntityID: s.cfg.FederationEntityID, OrgName: s.cfg.FederationOrganizationName,
		Resolver: anchor.Resolver{Client: (&issuer.Validator{AllowPrivate: allowPrivate}).Client()}}
	servers := &handlers.Servers{Org: org, Servers: &directory.Servers{Store: s.db, Issuers: &issuer.Validator{AllowPrivate: allowPrivate}, Vocab: s.vocab, AllowPrivateURLs: allowPrivate, Control: fedAnchor}}
	apps := &handlers.Applications{Org: org, Apps: &directory.Applications{Store: s.db, Vocab: s.vocab, AllowPrivateURLs: allowPrivate, Control: fedAnchor}, Algs: s.keys.Enabled}
	reactivations := &handlers.Reactivations{Org: org, Reactivations: &directory.Reactivations{Store: s.db, Vocab: s.vocab}}
	imports := &handlers.Imports{Org: org, Import: &directory.Imports{Store: s.db, Vocab: s.vocab}}
	certs := &handlers.Certificates{Base: base, Org: org, Certs: &directory.Certificates{Store: s.db, Now: s.cfg.Now}, Log: &directory.AuditLog{Store: s.db}, Store: s.db,
		Issuing: &directory.Issuance{Store: s.db, CA: caSource, URLs: pki.URLsUnder(s.cfg.BaseURL), Lifetime: s.cfg.PKILeafLifetime, Vocab: s.vocab, Now: s.cfg.Now}}
	keyMat := &handlers.KeyMaterial{Base: base, Org: org, Keys: &directory.KeyMaterials{Store: s.db}}
	docs := &handlers.Documents{Base: base, Org: org, Documents: &directory.Documents{Store: s.db}, DocumentTypes: documentTypes.Refs, CertificationTypes: certificationTypes.Refs, Now: s.cfg.Now}
	policies := &handlers.Policies{Base: base, Rules: &federation.RolePolicies{Store: s.db}, Simulator: &federation.Simulator{Store: s.db}}
	idps := &handlers.IdentityProviders{Base: base, Providers: &directory.IdentityProviders{Store: s.db, Issuers: &issuer.Validator{AllowPrivate: allowPrivate}, OwnIssuer: s.signInIssuer(),
		SealSecret: func(name string, secret []byte) []byte { return s.kek.Seal(secret, idpSecretAAD(name)) },
		OpenSecret: func(name string, sealed []byte) ([]byte, error) { return s.kek.Open(sealed, idpSecretAAD(name)) }}}
	ssaH := &handlers.SSA{Base: base, Apps: apps, Keys: s.keys, SigningKeys: &directory.SigningKeys{SSA: s.keys, Federation: s.fedKeys, Now: s.cfg.Now},
		SSAs: &directory.SSAs{Store: s.db, Keys: s.keys, Issuer: s.cfg.SSAIssuer, BaseURL: base.BaseURL, PKI: caSource, Vocab: base.Vocab, Now: s.cfg.Now}}
	refs := &handlers.References{Base: base, Flags: &directory.Flags{Store: s.db}}
	trustMarkTypes := &handlers.TrustMarkTypes{Base: base, Types: &directory.TrustMarkTypes{Store: s.db, EntityID: s.cfg.FederationEntityID, Now: s.cfg.Now},
		Domains: &directory.Domains{Store: s.db}, CertificationTypes: certificationTypes.Refs}
	admins := &directory.Administrators{Store: s.db, BaseURL: base.BaseURL, Mailer: s.mailer, Log: handlers.LoggerFrom}
	superUsers := &handlers.SuperUsers{Base: base, Admins: admins}
	dataAdmins := &handlers.DataAdmins{Base: base, Admins: admins}
	orgAdmins := &handlers.OrgAdmins{Org: org, Admins: &directory.OrgAdministrators{Store: s.db, BaseURL: base.BaseURL, Mailer: s.mailer, Log: handlers.LoggerFrom}}
	pages := &handlers.Pages{Base: base, Start: &directory.Home{Store: s.db, Now: s.cfg.Now}, Log: &directory.AuditLog{Store: s.db}}
	domains := &handlers.Domains{Base: base, Domains: &directory.Domains{Store: s.db}}
	claims := &handlers.Claims{Base: base, Org: org, Claims: &directory.Claims{Store: s.db}}
	changes := &handlers.Changes{Base: base, Feed: &changefeed.Feed{Store: s.db, Stopping: s.stopping, MaxPolls: s.cfg.MaxLongPolls, MaxPollsPerPrincipal: s.cfg.MaxLongPollsPerAdmin}}
	hooks := &handlers.Webhooks{Base: base, Hooks: &directory.Webhooks{Store: s.db,
		CheckURL: func(ctx context.Context, raw string) string {
			return webhooks.CheckURL(ctx, raw, s.cfg.AllowPrivateWebhookURLs, nil)
		},
		Secrets: directory.WebhookSecrets{New: webhooks.NewSecret, Parse: webhooks.ParseSecret,
			Seal: func(id string, key []byte) []byte { return s.kek.Seal(key, webhookSecretAAD(id)) }}}}

	r := chi.NewRouter()
	r.Use(requestID, s.logRequests, s.recoverer, headAsGet, s.loopbackHosts, s.securityHeaders)
	if s.idp != nil && s.cfg.DevIdPAllowRemote {
		r.Use(remoteDevIdPBanner) // every page says it
	}
	notFound := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		handlers.WriteError(w, r, handlers.CodeNotFound.New("There is nothing at "+r.URL.Path+"."))
	})
	// A page that does not exist, asked by a browser, is answered in the
	// signed-in console (its menu and Sign out), not a bare page: the
	// session is read as the home page reads it, never required.
	browser := chi.Chain(guardSessions, s.sessions.LoadAndSave, sessionLoaded, s.sessionIdle, http.NewCrossOriginProtection().Handler, noStore)
	notFoundPage := browser.Handler(s.auth.sessionAuth(false)(notFound))
	r.NotFound(func(w http.ResponseWriter, r *http.Request) {
		if machinePath(r.URL.Path) {
			notFound(w, asJSON(r)) // a problem body, whatever Accept says
			return
		}
		if strings.HasPrefix(r.URL.Path, "/api/") || !strings.Contains(r.Header.Get("Accept"), "text/html") {
			notFound(w, r)
			return
		}
		notFoundPage.ServeHTTP(w, r)
	})
	r.MethodNotAllowed(func(w http.ResponseWriter, req *http.Request) {
		allow := allowedMethods(r, req)
		if allow != "" {
			w.Header().Set("Allow", allow) // a 405 must say what is allowed (RFC 9110 §15.5.6)
		}
		if req.URL.Path == "/.well-known/openid-federation" || strings.HasPrefix(req.URL.Path, "/federation/") {
			// Federation endpoints answer errors in their own JSON shape
			// (docs/design.md §13), as the standalone anchor does.
			anchor.WriteError(w, http.StatusMethodNotAllowed, "invalid_request", req.Method+" is not allowed on "+req.URL.Path+"; it allows "+allow)
			return
		}
		if req.URL.Path == "/oauth/token" { // an OAuth client reads RFC 6749 §5.2 errors
			handlers.OAuthError(w, http.StatusMethodNotAllowed, "invalid_request", req.Method+" is not allowed on /oauth/token; send the token request by POST")
			return
		}
		if machinePath(req.URL.Path) {
			req = asJSON(req) // machines' endpoints: a problem body, whatever Accept says
		}
		handlers.WriteError(w, req, handlers.CodeMethodNotAllowed.New(req.Method+" is not allowed on "+req.URL.Path+"."))
	})

	// Operations.
	r.Get("/healthz", func(w http.ResponseWriter, r *http.Request) {
		handlers.WriteJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	})
	r.Get("/readyz", s.ready)
	r.Get("/static/*", static.Handler().ServeHTTP)
	r.Get("/.well-known/oauth-protected-resource", s.protectedResourceMetadata)
	r.Get("/.well-known/oauth-protected-resource/api", s.protectedResourceMetadata)

	// The directory's own token endpoint: applications calling the API for
	// themselves (docs/design.md §20).
	clientTokens := &handlers.ClientTokens{Tokens: s.clients, BindProof: s.bindTokenProof, DPoPAlgs: func() []string { return strings.Fields(s.tokDPoP.AlgList()) }, Nonce: s.newNonce}
	r.Get("/.well-known/oauth-authorization-server", clientTokens.Metadata)
	r.With(s.oauthRateLimit).Post("/oauth/token", clientTokens.Token)

	// Development identity provider (only without --oidc-issuer).
	if s.idp != nil {
		r.Route("/dev/idp", func(r chi.Router) {
			r.Use(s.loopbackOnly, noStore)
			routes := s.idp.Routes()
			r.Get("/.well-known/openid-configuration", routes["GET /.well-known/openid-configuration"])
			r.Get("/jwks", routes["GET /jwks"])
			r.With(s.rateLimit, http.NewCrossOriginProtection().Handler).Get("/authorize", routes["GET /authorize"])
			r.With(s.rateLimit, http.NewCrossOriginProtection().Handler).Post("/authorize", routes["POST /authorize"])
			r.With(s.oauthRateLimit).Post("/token", routes["POST /token"])
			r.With(s.oauthRateLimit).Post("/revoke", routes["POST /revoke"])
		})
	}

	// Public: no credentials.
	r.Get("/api/participants", orgs.Participants)
	r.Get("/api/releases", pages.Releases)
	r.Get("/api/releases/{version}/openapi.yaml", pages.ReleaseSpec)
	r.Get("/keystore/ssa.jwks", ssaH.Keyset)
	// The directory's own federation (docs/design.md §13).
	fed := &handlers.Federation{Base: base, Org: org, Apps: apps.Apps, Servers: servers.Servers, Now: s.cfg.Now, Marks: &directory.EntityTrustMarks{Store: s.db}, Anchor: fedAnchor}
	r.Get("/.well-known/openid-federation", fed.EntityConfiguration)
	r.Get("/federation/fetch", fed.Fetch)
	r.Get("/federation/list", fed.List)
	r.With(s.resolveBudget).Get("/federation/resolve", fed.Resolve)
	r.Get("/federation/historical-keys", fed.HistoricalKeys)
	r.Get("/federation/trust-mark", getOnly(fed.TrustMark)) // trust marks (docs/design.md §17)
	r.Post("/federation/trust-mark-status", fed.TrustMarkStatus)
	r.Get("/federation/trust-marked-entities", fed.TrustMarkedEntities)
	r.Get("/api/keystore/ssa.jwks", ssaH.Keyset)
	// The directory's certificate authority (docs/design.md §18): public,
	// routed only with --pki (else 404).
	caH := &handlers.PKI{Base: base, PKI: s.pki}
	if s.pki != nil {
		r.Get("/pki/ca.pem", caH.CAPEM)
		r.Get("/pki/ca.crt", caH.CACert)
		r.Get("/pki/crl", caH.CRL)
		r.Post("/pki/ocsp", caH.OCSPPost)
		r.Get("/pki/ocsp/{request}", caH.OCSPGet)
		r.Get("/pki/ocsp/*", caH.OCSPGet) // a base64 "/" left unescaped
	}
	r.Get("/keystore/{orgID}/application.jwks", certs.Keystore(true))
	r.Get("/keystore/{orgID}/inactive/application.jwks", certs.Keystore(false))
	// An application's keystores of the certificates the directory's CA issued (docs/design.md §18).
	for _, ks := range []string{directory.KeystoreApplication, directory.KeystoreTransport} {
		r.Get("/keystore/{orgID}/{appID}/"+ks+".jwks", certs.AppKeystore(ks, true))
		r.Get("/keystore/{orgID}/{appID}/inactive/"+ks+".jwks", certs.AppKeystore(ks, false))
	}

	// JSON API: access tokens only, no cookies.
	r.Route("/api", func(r chi.Router) {
		r.Use(noStore, s.dpopNonceHeader, publicOnlyGET, s.auth.apiAuth, s.apiRateLimit, conditionalGET)
		r = keyedPosts{r, s.idempotent} // every POST: a retry's answer after the route's role check
		r.Route("/organisations", func(r chi.Router) {
			r.Get("/", orgs.ListOrganisations)
			r.Post("/", orgs.CreateOrganisation)
			r.Get("/export.csv", getOnly(orgs.ExportOrganisations))
			r.Post("/import", imports.ImportOrganisations)
			r.Route("/{orgID}", func(r chi.Router) {
				r.Get("/", orgs.GetOrganisation)
				r.Put("/", orgs.UpdateOrganisation)
				r.Get("/contacts", contacts.ListContacts)
				r.Post("/contacts", contacts.CreateContact)
				r.Get("/contacts/{contactID}", contacts.GetContact)
				r.Put("/contacts/{contactID}", contacts.UpdateContact)
				r.Delete("/contacts/{contactID}", contacts.DeleteContact)
				// Organisation Administrators (docs/design.md §19): never deleted.
				r.Get("/administrators", orgAdmins.List)
				r.Post("/administrators", orgAdmins.Invite)
				r.Get("/administrators/{email}", orgAdmins.Get)
				r.Put("/administrators/{email}", orgAdmins.Update)
				r.Delete("/administrators/{email}", noHardDelete)
				r.Get("/authorisationservers", servers.ListServers)
				r.Post("/authorisationservers", servers.CreateServer)
				r.Get("/authorisationservers/{serverID}", servers.GetServer)
				r.Put("/authorisationservers/{serverID}", servers.UpdateServer)
				r.Get("/softwarestatements", apps.ListApps)
				r.Post("/softwarestatements", apps.CreateApp)
				r.Get("/softwarestatements/{appID}", apps.GetApp)
				r.Put("/softwarestatements/{appID}", apps.UpdateApp)
				r.Get("/softwarestatements/{appID}/assertion", getOnly(ssaH.Issue))
				// Certificates the directory's CA issues an application (docs/design.md §18).
				r.Get("/softwarestatements/{appID}/certificates", certs.AppList)
				r.Post("/softwarestatements/{appID}/certificates/{certType}", certs.IssueForApp)
				r.Get("/softwarestatements/{appID}/certificates/kid/{kid}", certs.AppGet)
				r.Put("/softwarestatements/{appID}/certificates/kid/{kid}", certs.Revoke)

				// Certificates: revocation by key id; the description update is gone (2.6.0).
				r.Get("/certificates", certs.List)
				r.Get("/certificates/kid/{kid}", certs.Get)
				r.Put("/certificates/kid/{kid}", certs.Revoke)
				r.Get("/certificates/{certType}", certs.List)
				r.Post("/certificates/{certType}", certs.Upload)
				r.Put("/certificates/{certType}", certs.DescriptionRemoved)

				// Key material (2.6.0).
				r.Get("/key-material", keyMat.List)
				r.Post("/key-material", keyMat.Create)
				r.Get("/key-material/{kmID}", keyMat.Get)
				r.Put("/key-material/{kmID}", keyMat.Update)
				r.Get("/key-material/{kmID}/attachments", keyMat.ListAttachments)
				r.Post("/key-material/{kmID}/attachments", keyMat.AddAttachment)
				r.Get("/key-material/{kmID}/attachments/{attID}", keyMat.GetAttachment)
				r.Put("/key-material/{kmID}/attachments/{attID}", keyMat.UpdateAttachment)
				r.Get("/key-material/{kmID}/attachments/{attID}/content", keyMat.Download)

				// Authority claims: never deleted (Status Inactive instead).
				r.Get("/authority-claims", claims.List)
				r.Post("/authority-claims", claims.Create)
				r.Get("/authority-claims/{claimID}", claims.Get)
				r.Put("/authority-claims/{claimID}", claims.Update)
				r.Delete("/authority-claims/{claimID}", claims.NoDelete)

				// Regulatory documents; certifications of applications and servers.
				r.Get("/documents", docs.List)
				r.Post("/documents", docs.Save)
				r.Get("/documents/{docID}", docs.Get)
				r.Put("/documents/{docID}", docs.Save)
				r.Post("/documents/{docID}/status", docs.SetStatus)
				r.Get("/certifications", docs.OrgCertifications)
				for _, subject := range []string{"/softwarestatements/{appID}", "/authorisationservers/{serverID}"} {
					r.Get(subject+"/certifications", docs.ListCertifications)
					r.Post(subject+"/certifications", docs.SaveCertification)
					r.Get(subject+"/certifications/{certID}", docs.GetCertification)
					r.Put(subject+"/certifications/{certID}", docs.SaveCertification)
				}
			})
		})
		r.Route("/references", func(r chi.Router) {
			r.Use(requireSuperUser)
			for path, h := range map[string]*handlers.RefTypes{"/contact-types": contactTypes, "/document-types": documentTypes, "/certification-types": certificationTypes} {
				r.Get(path, h.List)
				r.Post(path, h.Create)
				r.Get(path+"/{name}", h.Get)
				r.Put(path+"/{name}", h.Update)
				r.Delete(path+"/{name}", h.Delete)
			}
			r.Get("/flags", refs.ListFlags)
			r.Post("/flags", refs.CreateFlag)
			r.Get("/flags/{flagID}", refs.GetFlag)
			r.Put("/flags/{flagID}", refs.UpdateFlag)
			r.Get("/signing-keys", ssaH.ListKeys)
			r.Post("/signing-keys", ssaH.RotateKey)
			r.Post("/signing-keys/{kid}/retire", ssaH.RetireKey)
			r.Get("/signing-keys/federation", ssaH.ListFederationKeys)
			r.Post("/signing-keys/federation", ssaH.RotateFederationKey)
			r.Post("/signing-keys/federation/next", ssaH.PrepareFederationKey)
			r.Post("/signing-keys/federation/next/activate", ssaH.ActivateFederationKey)
			r.Get("/role-metadata-policies", policies.List)
			r.Post("/role-metadata-policies", policies.Save)
			r.Post("/role-metadata-policies/simulate", policies.Simulate)
			r.Get("/role-metadata-policies/{policyID}", policies.Get)
			r.Put("/role-metadata-policies/{policyID}", policies.Save)
			r.Get("/identity-providers", idps.List)
			r.Post("/identity-providers", idps.Create)
			r.Get("/identity-providers/{name}", idps.Get)
			r.Put("/identity-providers/{name}", idps.Update)
			// Webhooks (docs/design.md §15).
			r.Get("/webhooks", hooks.List)
			r.Post("/webhooks", hooks.Create)
			r.Get("/webhooks/{webhookID}", hooks.Get)
			r.Put("/webhooks/{webhookID}", hooks.Update)
			r.Delete("/webhooks/{webhookID}", hooks.Delete)
			r.Post("/webhooks/{webhookID}/rotate-secret", hooks.RotateSecret)
			r.Post("/webhooks/{webhookID}/test", hooks.SendTest)
			r.Get("/webhooks/{webhookID}/deliveries", hooks.Deliveries)
			r.Post("/webhooks/{webhookID}/deliveries/{deliveryID}/redeliver", hooks.Redeliver)
		})
		// Authorisation domains, roles and authorities (docs/design.md §12):
		// every administrator reads them (claims are chosen from them); only
		// Super Users write them.
		r.Route("/references/authorisation-domains", func(r chi.Router) {
			r.Get("/", domains.ListDomains)
			r.With(requireSuperUser).Post("/", domains.CreateDomain)
			r.Get("/{domain}", domains.GetDomain)
			r.With(requireSuperUser).Put("/{domain}", domains.UpdateDomain)
			r.With(requireSuperUser).Delete("/{domain}", domains.DeleteDomain)
			r.Get("/{domain}/roles", domains.ListRoles)
			r.With(requireSuperUser).Post("/{domain}/roles", domains.CreateRole)
			r.Get("/{domain}/roles/{role}", domains.GetRole)
			r.With(requireSuperUser).Put("/{domain}/roles/{role}", domains.UpdateRole)
			r.With(requireSuperUser).Delete("/{domain}/roles/{role}", domains.DeleteRole)
		})
		// Trust mark types (docs/design.md §17): every administrator reads
		// them, only Super Users write them.
		r.Route("/references/trust-mark-types", func(r chi.Router) {
			r.Get("/", trustMarkTypes.List)
			r.With(requireSuperUser).Post("/", trustMarkTypes.Create)
			r.Get("/{typeID}", trustMarkTypes.Get)
			r.With(requireSuperUser).Put("/{typeID}", trustMarkTypes.Update)
		})
		r.Route("/references/authorities", func(r chi.Router) {
			r.Get("/", domains.ListAuthorities)
			r.With(requireSuperUser).Post("/", domains.CreateAuthority)
			r.Get("/{authorityID}", domains.GetAuthority)
			r.With(requireSuperUser).Put("/{authorityID}", domains.UpdateAuthority)
			r.With(requireSuperUser).Delete("/{authorityID}", domains.DeleteAuthority)
		})
		r.Route("/users/super", func(r chi.Router) {
			r.Use(requireSuperUser)
			r.Get("/", superUsers.List)
			r.Post("/", superUsers.Create)
			r.Get("/{email}", superUsers.Get)
			r.Put("/{email}", superUsers.Update)
			r.Delete("/{email}", noHardDelete)
		})
		r.Route("/users/data-administrators", func(r chi.Router) {
			r.Use(requireSuperUser)
			r.Get("/", dataAdmins.List)
			r.Post("/", dataAdmins.Invite)
			r.Get("/{email}", dataAdmins.Get)
			r.Put("/{email}", dataAdmins.Update)
			r.Delete("/{email}", noHardDelete)
		})
		r.Get("/audit", pages.Audit)
		r.Get("/audit/export.csv", getOnly(pages.ExportAudit))
		r.Get("/expiring", pages.Expiring)
		// The change feed (docs/design.md §15): Data Administrators and Super
		// Users (the gate refuses Organisation Administrators, 403), as the
		// directory-wide audit log.
		r.Get("/changes", changes.List)
	})

	// Browser: session cookie, cross-origin protection on every unsafe method.
	r.Group(func(r chi.Router) {
		r.Use(browser...)
		r.With(s.rateLimit).Get("/login", getOnly(s.auth.login))
		r.With(s.rateLimit).Get("/auth/callback", getOnly(s.auth.callback))
		r.Get("/login/refused", s.auth.refusedPage)
		r.Post("/logout", s.auth.logout)
		r.With(s.auth.sessionAuth(false)).Get("/", pages.Home)

		r.Group(func(r chi.Router) {
			r.Use(s.auth.sessionAuth(true))
			r = keyedPosts{r, s.idempotent} // every POST: a retry's answer after the route's role check
			r.Post("/attention/acknowledge", pages.Acknowledge)
			// Organisations and everything under them.
			r.Get("/organisations", orgs.ListOrganisations)
			r.Post("/organisations", orgs.CreateOrganisation)
			r.Get("/organisations/new", orgs.NewOrganisation)
			r.Get("/organisations/export.csv", getOnly(orgs.ExportOrganisations))
			r.Get("/organisations/import", imports.ImportForm)
			r.Post("/organisations/import", imports.ImportOrganisations)
			r.Route("/organisations/{orgID}", func(r chi.Router) {
				r.Get("/", orgs.GetOrganisation)
				r.Post("/", orgs.UpdateOrganisation)
				r.Get("/edit", orgs.EditOrganisation)
				r.Post("/status", orgs.SetOrganisationStatus)
				r.Get("/reactivate", reactivations.ReactivateForm(lifecycle.Organisation))
				r.Post("/reactivate", reactivations.Reactivate(lifecycle.Organisation))
				r.Get("/softwarestatements/{appID}/reactivate", reactivations.ReactivateForm(lifecycle.Application))
				r.Post("/softwarestatements/{appID}/reactivate", reactivations.Reactivate(lifecycle.Application))
				r.Get("/authorisationservers/{serverID}/reactivate", reactivations.ReactivateForm(lifecycle.AuthorisationServer))
				r.Post("/authorisationservers/{serverID}/reactivate", reactivations.Reactivate(lifecycle.AuthorisationServer))
				r.Get("/contacts", contacts.ListContacts)
				r.Post("/contacts", contacts.CreateContact)
				r.Get("/contacts/new", contacts.ContactForm)
				r.Get("/contacts/{contactID}/edit", contacts.ContactForm)
				r.Post("/contacts/{contactID}", contacts.UpdateContact)
				r.Post("/contacts/{contactID}/delete", contacts.DeleteContact)
				r.Get("/administrators", orgAdmins.List)
				r.Post("/administrators", orgAdmins.Invite)
				r.Get("/administrators/new", orgAdmins.New)
				r.Post("/administrators/{email}", orgAdmins.Update)
				r.Get("/authorisationservers", servers.ListServers)
				r.Post("/authorisationservers", servers.CreateServer)
				r.Get("/authorisationservers/new", servers.ServerForm)
				r.Get("/authorisationservers/{serverID}/edit", servers.ServerForm)
				r.Post("/authorisationservers/{serverID}", servers.UpdateServer)
				r.Get("/softwarestatements", apps.ListApps)
				r.Post("/softwarestatements", apps.CreateApp)
				r.Get("/softwarestatements/new", apps.AppForm)
				r.Get("/softwarestatements/{appID}", apps.GetApp)
				r.Post("/softwarestatements/{appID}", apps.UpdateApp)
				r.Get("/softwarestatements/{appID}/edit", apps.AppForm)
				r.Post("/softwarestatements/{appID}/status", apps.SetAppStatus)
				r.Get("/softwarestatements/{appID}/assertion", getOnly(ssaH.Issue))
				r.Get("/softwarestatements/{appID}/audit", certs.AppAudit)
				r.Get("/softwarestatements/{appID}/certificates", certs.AppList)
				r.Post("/softwarestatements/{appID}/certificates", certs.IssueForApp)
				r.Get("/softwarestatements/{appID}/certificates/kid/{kid}/certificate.pem", certs.AppCertificatePEM(false))
				r.Get("/softwarestatements/{appID}/certificates/kid/{kid}/chain.pem", certs.AppCertificatePEM(true))
				r.Get("/softwarestatements/{appID}/federation", fed.Tab("Application", false))
				r.Post("/softwarestatements/{appID}/federation/check", fed.Tab("Application", true))
				r.Get("/authorisationservers/{serverID}/federation", fed.Tab("AuthorisationServer", false))
				r.Post("/authorisationservers/{serverID}/federation/check", fed.Tab("AuthorisationServer", true))
				r.Get("/certificates", certs.List)
				r.Get("/certificates/new", certs.Wizard)
				r.Post("/certificates/new/review", certs.Review)
				r.Get("/certificates/new/review", certs.ReviewPage)
				r.Get("/certificates/audit", certs.Audit)
				r.Get("/certificates/kid/{kid}/revoke", certs.RevokeConfirm)
				r.Post("/certificates/kid/{kid}/revoke", certs.Revoke)
				r.Post("/certificates/{certType}", certs.Upload)
				r.Get("/key-material", keyMat.List)
				r.Post("/key-material", keyMat.Create)
				r.Get("/key-material/new", keyMat.New)
				r.Get("/key-material/{kmID}", keyMat.Get)
				r.Post("/key-material/{kmID}", keyMat.Update)
				r.Get("/key-material/{kmID}/revoke", keyMat.RevokeConfirm)
				r.Post("/key-material/{kmID}/attachments", keyMat.AddAttachment)
				r.Post("/key-material/{kmID}/attachments/{attID}", keyMat.UpdateAttachment)
				r.Get("/key-material/{kmID}/attachments/{attID}/content", keyMat.Download)
				r.Get("/authority-claims", claims.List)
				r.Post("/authority-claims", claims.Create)
				r.Get("/authority-claims/new", claims.New)
				r.Post("/authority-claims/{claimID}", claims.Update)
				r.Get("/documents", docs.List)
				r.Post("/documents", docs.Save)
				r.Get("/documents/new", docs.Form)
				r.Get("/documents/{docID}/edit", docs.Form)
				r.Post("/documents/{docID}", docs.Save)
				r.Post("/documents/{docID}/status", docs.SetStatus)
				r.Get("/certifications", docs.OrgCertifications)
				for _, subject := range []string{"/softwarestatements/{appID}", "/authorisationservers/{serverID}"} {
					r.Get(subject+"/certifications", docs.ListCertifications)
					r.Post(subject+"/certifications", docs.SaveCertification)
					r.Get(subject+"/certifications/new", docs.CertificationForm)
					r.Get(subject+"/certifications/{certID}/edit", docs.CertificationForm)
					r.Post(subject+"/certifications/{certID}", docs.SaveCertification)
				}
			})
			r.Get("/audit", pages.Audit)
			r.Get("/audit/export.csv", getOnly(pages.ExportAudit))
			r.Get("/api-reference", pages.APIReference)

			// Reference Data: Super Users only.
			r.Route("/references", func(r chi.Router) {
				r.Use(requireSuperUser)
				r.Get("/", pages.References)
				r.Get("/super-users", superUsers.List)
				r.Get("/super-users/new", superUsers.New)
				r.Post("/super-users", superUsers.Create)
				r.Post("/super-users/{email}", superUsers.Update)
				r.Get("/data-administrators", dataAdmins.List)
				r.Get("/data-administrators/new", dataAdmins.New)
				r.Post("/data-administrators", dataAdmins.Invite)
				r.Post("/data-administrators/{email}", dataAdmins.Update)
				for path, h := range map[string]*handlers.RefTypes{"/contact-types": contactTypes, "/document-types": documentTypes, "/certification-types": certificationTypes} {
					r.Get(path, h.List)
					r.Get(path+"/new", h.New)
					r.Post(path, h.Create)
					r.Get(path+"/{name}/edit", h.Edit)
					r.Post(path+"/{name}", h.Update)
					r.Post(path+"/{name}/delete", h.Delete)
				}
				r.Get("/flags", refs.ListFlags)
				r.Get("/flags/new", refs.NewFlag)
				r.Post("/flags", refs.CreateFlag)
				r.Post("/flags/{flagID}", refs.UpdateFlag)
				r.Get("/trust-mark-types", trustMarkTypes.List)
				r.Get("/trust-mark-types/new", trustMarkTypes.New)
				r.Post("/trust-mark-types", trustMarkTypes.Create)
				r.Get("/trust-mark-types/{typeID}", trustMarkTypes.Get)
				r.Get("/trust-mark-types/{typeID}/edit", trustMarkTypes.Edit)
				r.Post("/trust-mark-types/{typeID}", trustMarkTypes.Update)
				r.Get("/signing-keys", ssaH.ListKeys)
				r.Post("/signing-keys", ssaH.RotateKey)
				r.Post("/signing-keys/{kid}/retire", ssaH.RetireKey)
				r.Post("/signing-keys/federation", ssaH.RotateFederationKey)
				r.Post("/signing-keys/federation/next", ssaH.PrepareFederationKey)
				r.Post("/signing-keys/federation/next/activate", ssaH.ActivateFederationKey)
				r.Get("/federation", fed.OwnConfiguration) // the entity configuration, decoded
				r.Get("/certificate-authority", caH.Page)
				r.Get("/role-metadata-policies", policies.List)
				r.Get("/role-metadata-policies/new", policies.New)
				r.Post("/role-metadata-policies", policies.Save)
				r.Get("/role-metadata-policies/try", policies.TryIt)
				r.Post("/role-metadata-policies/try", policies.TryIt)
				r.Get("/role-metadata-policies/{policyID}/edit", policies.Edit)
				r.Post("/role-metadata-policies/{policyID}", policies.Save)
				r.Get("/identity-providers", idps.List)
				r.Get("/identity-providers/new", idps.New)
				r.Post("/identity-providers", idps.Create)
				r.Get("/identity-providers/{name}", idps.Get)
				r.Post("/identity-providers/{name}", idps.Update)
				r.Get("/webhooks", hooks.List)
				r.Get("/webhooks/new", hooks.New)
				r.Post("/webhooks", hooks.Create)
				r.Get("/webhooks/{webhookID}", hooks.Get)
				r.Post("/webhooks/{webhookID}", hooks.Update)
				r.Post("/webhooks/{webhookID}/rotate-secret", hooks.RotateSecret)
				r.Post("/webhooks/{webhookID}/test", hooks.SendTest)
				r.Post("/webhooks/{webhookID}/delete", hooks.Delete)
				r.Post("/webhooks/{webhookID}/deliveries/{deliveryID}/redeliver", hooks.Redeliver)

				// Domains and Roles: domains, their roles, authorities.
				r.Get("/authorisation-domains", domains.ListDomains)
				r.Get("/authorisation-domains/new", domains.NewDomain)
				r.Post("/authorisation-domains", domains.CreateDomain)
				r.Get("/authorisation-domains/{domain}/edit", domains.EditDomain)
				r.Post("/authorisation-domains/{domain}", domains.UpdateDomain)
				r.Post("/authorisation-domains/{domain}/delete", domains.DeleteDomain)
				r.Get("/authorisation-domains/{domain}/roles/new", domains.NewRole)
				r.Post("/authorisation-domains/{domain}/roles", domains.CreateRole)
				r.Get("/authorisation-domains/{domain}/roles/{role}/edit", domains.EditRole)
				r.Post("/authorisation-domains/{domain}/roles/{role}", domains.UpdateRole)
				r.Post("/authorisation-domains/{domain}/roles/{role}/delete", domains.DeleteRole)
				r.Get("/authorities", domains.ListAuthorities)
				r.Get("/authorities/new", domains.NewAuthority)
				r.Post("/authorities", domains.CreateAuthority)
				r.Get("/authorities/{authorityID}/edit", domains.EditAuthority)
				r.Post("/authorities/{authorityID}", domains.UpdateAuthority)
				r.Post("/authorities/{authorityID}/delete", domains.DeleteAuthority)
			})
			r.With(requireSuperUser).Get("/dev/outbox", pages.Outbox)
		})
	})
	return r
}

// allowedMethods lists the methods the router takes at the request's path,
// for the Allow header of a 405 (chi sets it only without a handler of our
// own). It walks the routes rather than asking chi's Find, which takes the
// path a subrouter is mounted on (/api/organisations, /api/users/super)
// for a route of every method.
func allowedMethods(mux *chi.Mux, r *http.Request) string {
	path := r.URL.RawPath
	if path == "" {
		path = r.URL.Path
	}
	set := map[string]bool{}
	routedMethods(mux, "", path, set)
	if set[http.MethodGet] && headRefused[mux.Find(chi.NewRouteContext(), http.MethodGet, path)] {
		// The route a GET (and so a HEAD) takes here refuses HEAD.
		delete(set, http.MethodHead)
	}
	var allow []string
	for _, m := range []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete} {
		if set[m] {
			allow = append(allow, m)
		}
	}
	return strings.Join(allow, ", ")
}

// routedMethods adds to set the methods of the routes under routes (mounted
// at prefix) that match path, less the alwaysRefused ones. A subrouter
// mounted at P serves P itself, P/ and everything below it.
func routedMethods(routes chi.Routes, prefix, path string, set map[string]bool) {
	for _, rt := range routes.Routes() {
		if rt.SubRoutes != nil {
			mount := strings.TrimSuffix(rt.Pattern, "/*")
			if rest, ok := underMount(mount, path); ok {
				routedMethods(rt.SubRoutes, prefix+mount, rest, set)
			}
			continue
		}
		if !patternMatches(rt.Pattern, path) {
			continue
		}
		for m := range rt.Handlers {
			if m == "*" {
				for _, all := range []string{http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete} {
					set[all] = true
				}
				continue
			}
			if !alwaysRefused[m+" "+prefix+rt.Pattern] {
				set[m] = true
			}
			if m == http.MethodGet {
				set[http.MethodHead] = true // every GET route answers HEAD (head.go)
			}
		}
	}
}

// underMount reports whether path is at or below the mount point and, if
// so, the path the subrouter sees ("/" for the mount point itself).
func underMount(mount, path string) (string, bool) {
	ms, ps := strings.Split(mount, "/"), strings.Split(path, "/")
	if len(ps) < len(ms) {
		return "", false
	}
	for i := range ms {
		if !segmentMatches(ms[i], ps[i]) {
			return "", false
		}
	}
	return "/" + strings.Join(ps[len(ms):], "/"), true
}

// patternMatches matches a chi pattern ({param} segments, a final *)
// against a path, segment by segment.
// machinePath reports whether path is under an endpoint only machines
// call (keystores, the CA, the federation's and OAuth's well-known
// documents): its errors are problem bodies whatever Accept says.
func machinePath(path string) bool {
	for _, p := range []string{"/keystore/", "/pki/", "/.well-known/", "/federation/", "/oauth/"} {
		if strings.HasPrefix(path, p) {
			return true
		}
	}
	return false
}

// asJSON is r asking for JSON.
func asJSON(r *http.Request) *http.Request {
	r = r.Clone(r.Context())
	r.Header.Set("Accept", "application/json")
	return r
}

func patternMatches(pattern, path string) bool {
	ms, ps := strings.Split(pattern, "/"), strings.Split(path, "/")
	for i, m := range ms {
		if m == "*" && i == len(ms)-1 {
			return len(ps) > i // P/* matches P/ and below, not P
		}
		if i >= len(ps) || !segmentMatches(m, ps[i]) {
			return false
		}
	}
	return len(ps) == len(ms)
}

func segmentMatches(pattern, seg string) bool {
	if strings.HasPrefix(pattern, "{") && strings.HasSuffix(pattern, "}") {
		return seg != ""
	}
	return pattern == seg
}

// alwaysRefused are the routes whose handler answers 405 with its own
// reason (nothing of theirs is ever deleted): no Allow lists them.
var alwaysRefused = map[string]bool{
	"DELETE /api/users/super/{email}":                              true,
	"DELETE /api/users/data-administrators/{email}":                true,
	"DELETE /api/organisations/{orgID}/administrators/{email}":     true,
	"DELETE /api/organisations/{orgID}/authority-claims/{claimID}": true,
}

// publicGETRoutes are the /api routes that take no credentials (GET and
// HEAD only).
var publicGETRoutes = []string{"/api/participants", "/api/releases", "/api/releases/{version}/openapi.yaml", "/api/keystore/ssa.jwks"}

// publicOnlyGET answers another method than GET and HEAD on a public /api
// route with 405.
// Such a request falls through to the /api group, which would otherwise
// ask for a token that no method there needs.
func publicOnlyGET(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for _, p := range publicGETRoutes {
			if r.Method != http.MethodGet && r.Method != http.MethodHead && patternMatches(p, r.URL.Path) {
				w.Header().Set("Allow", "GET, HEAD")
				handlers.WriteError(w, r, handlers.CodeMethodNotAllowed.New(r.Method+" is not allowed on "+r.URL.Path+"."))
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// noHardDelete answers DELETE on administrators: removal is Status Inactive.
func noHardDelete(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Allow", "GET, PUT")
	handlers.WriteError(w, r, handlers.CodeMethodNotAllowed.New("administrators are never deleted; set Status to Inactive instead"))
}

// protectedResourceMetadata describes the API for OAuth clients (RFC 9728):
// where to get tokens and which DPoP algorithms it takes.
func (s *Server) protectedResourceMetadata(w http.ResponseWriter, r *http.Request) {
	issuer := s.cfg.OIDCIssuer
	if s.idp != nil {
		issuer = s.idp.Issuer()
	}
	w.Header().Set("Cache-Control", "public, max-age=300")
	handlers.WriteJSON(w, http.StatusOK, map[string]any{
		"resource":                          s.cfg.APIAudience,
		"authorization_servers":             []string{issuer},
		"bearer_methods_supported":          []string{"header"},
		"dpop_signing_alg_values_supported": strings.Fields(s.dpop.AlgList()),
		"resource_name":                     "trustframe API",
		"trustframe_cli_client_id":          "trustframe-cli",
	})
}

// dpopNonceHeader gives every API answer a fresh DPoP-Nonce when server
// nonces are on (RFC 9449 §9).
func (s *Server) dpopNonceHeader(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.nonces != nil {
			w.Header().Set("DPoP-Nonce", s.nonces.New())
		}
		next.ServeHTTP(w, r)
	})
}

func (s *Server) ready(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	if err := s.db.Ping(ctx); err != nil {
		handlers.WriteJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "database unavailable"})
		return
	}
	handlers.WriteJSON(w, http.StatusOK, map[string]any{"status": "ready", "time": s.cfg.Now().UTC().Format(time.RFC3339)})
}
