package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/trustframe/trustframe/issuer"
	"github.com/trustframe/trustframe/pki"
	"github.com/trustframe/trustframe/ssa/keyring"
	"github.com/trustframe/trustframe/store"
	"github.com/trustframe/trustframe/web"
)

// doctorReport prints one line per check: ok, warn or fail.
type doctorReport struct {
	w     io.Writer
	fails int
	warns int
}

func (r *doctorReport) ok(what, msg string, args ...any) {
	fmt.Fprintf(r.w, "ok    %-26s %s\n", what, fmt.Sprintf(msg, args...))
}

func (r *doctorReport) warn(what, msg string, args ...any) {
	r.warns++
	fmt.Fprintf(r.w, "warn  %-26s %s\n", what, fmt.Sprintf(msg, args...))
}

func (r *doctorReport) fail(what, msg string, args ...any) {
	r.fails++
	fmt.Fprintf(r.w, "FAIL  %-26s %s\n", what, fmt.Sprintf(msg, args...))
}

// userInfoCheck: doctor cannot see a provider's tokens, but its discovery
// document says whether trustframe can ask for the e-mail when a token
// lacks it (docs/openid-provider.md).
func userInfoCheck(r *doctorReport, what, provider, claim, userinfo string) {
	if claim == "" {
		claim = "email"
	}
	if userinfo == "" {
		r.warn(what, "%s names no UserInfo endpoint: its ID tokens and access tokens must carry the %s claim, or sign-in and API tokens are refused (docs/openid-provider.md)", provider, claim)
		return
	}
	r.ok(what, "the %s claim of tokens, else %s's UserInfo endpoint (for Bearer tokens and at sign-in)", claim, provider)
}

// cmdDoctor checks a deployment with the flags serve would get: the
// database, the key-encryption key, the signing keys, the administrators,
// the public URL, the sign-in issuer, SMTP and the bound identity
// providers. It opens the database as serve does (pending migrations are
// applied) and writes nothing else; it makes no database or KEK that is not
// there. It exits 1 when a check fails.
func cmdDoctor(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	flags := flag.NewFlagSet("doctor", flag.ContinueOnError)
	var f serveFlags
	f.register(flags)
	if err := parseFlags(flags, args, getenv, stderr); err != nil {
		return err
	}
	r := &doctorReport{w: stdout}
	defer func() {
		fmt.Fprintf(stdout, "\n%d failed, %d warnings.\n", r.fails, r.warns)
	}()

	// What serve would refuse before anything else (check changes nothing).
	if _, err := f.check(); err != nil {
		r.fail("flags", "serve would not start: %v", err)
	}
	db, err := doctorDatabase(ctx, r, &f)
	if err != nil {
		return err
	}
	defer db.Close()
	doctorKeys(ctx, r, &f, db)
	doctorPKI(ctx, r, &f, db)
	doctorSuperUsers(ctx, r, &f, db)
	base := doctorBaseURL(r, &f)
	allowPrivate := doctorSignIn(ctx, r, &f, base)
	doctorSMTP(r, &f)
	doctorIdentityProviders(ctx, r, db, allowPrivate)
	if r.fails > 0 {
		return &exitError{code: 1, err: errors.New("the deployment has problems")}
	}
	return nil
}

// doctorDatabase opens the database and checks it; the caller closes it.
func doctorDatabase(ctx context.Context, r *doctorReport, f *serveFlags) (*store.DB, error) {
	if err := checkDatabase(f.database); err != nil {
		return nil, err
	}
	path := filepath.Join(f.dataDir, "trustframe.db")
	if f.database != "" {
		path = f.database
	} else if _, err := os.Stat(path); err != nil {
		r.fail("database", "no database at %s: start trustframe serve (or migrate) with this --data-dir first", path)
		return nil, &exitError{code: 1, err: errors.New("the deployment has problems")}
	}
	db, err := store.Open(ctx, path, time.Now)
	if err != nil {
		r.fail("database", "%s does not open: %v", shownDatabase(path), err)
		return nil, &exitError{code: 1, err: errors.New("the deployment has problems")}
	}
	if err := db.CheckWritable(ctx); err != nil {
		db.Close()
		r.fail("database", "%s does not take writes: %v", shownDatabase(path), err)
		return nil, &exitError{code: 1, err: errors.New("the deployment has problems")}
	}
	if err := db.IntegrityCheck(ctx); err != nil {
		r.fail("database", "%v", err)
	} else if names, err := db.Migrations(ctx); err == nil && len(names) > 0 {
		check := "integrity ok" // SQLite's quick_check; PostgreSQL checks its own pages
		if db.Engine() == store.Postgres {
			check = "answers"
		}
		r.ok("database", "%s, %s, at migration %s", shownDatabase(path), check, names[len(names)-1])
	}

	return db, nil
}

// doctorKeys checks the key-encryption key and the SSA signing keys.
func doctorKeys(ctx context.Context, r *doctorReport, f *serveFlags, db *store.DB) {
	kekPath := f.kekFile
	if kekPath == "" {
		kekPath = filepath.Join(f.dataDir, "kek.key")
	}
	sealed, _ := db.KEKCheck(ctx)
	kek, err := keyring.LoadKEK(kekPath)
	switch {
	case errors.Is(err, fs.ErrNotExist) && sealed != nil:
		r.fail("key-encryption key", "%s is missing, and the database's keys are sealed with a KEK: put the right file back", kekPath)
	case errors.Is(err, fs.ErrNotExist):
		r.warn("key-encryption key", "%s does not exist yet; serve makes it at first start", kekPath)
	case err != nil:
		r.fail("key-encryption key", "%v", err)
	case sealed != nil && !kek.Matches(sealed):
		r.fail("key-encryption key", "%s is not the KEK this database's keys were sealed with: put back the KEK file it was created with, or point --kek-file at it", kekPath)
	default:
		r.ok("key-encryption key", "%s opens this database's keys", kekPath)
	}
	dbPath := ""
	if f.database == "" {
		dbPath = filepath.Join(f.dataDir, "trustframe.db")
	}
	for _, o := range filesOpenToOthers(dbPath, kekPath) {
		r.fail("file mode", "%s (%s) is open to its group or other users (mode %o): chmod 600 %s", o.path, o.holds, o.mode, o.path)
	}
	for _, alg := range splitList(f.ssaAlgs) {
		if k, err := db.CurrentSigningKey(ctx, alg); err == nil {
			r.ok("SSA signing key "+alg, "kid %s", k.Kid)
		} else if errors.Is(err, store.ErrNotFound) {
			r.warn("SSA signing key "+alg, "none yet; serve makes one at start")
		} else {
			r.fail("SSA signing key "+alg, "%v", err)
		}
	}
	doctorFederationKeys(ctx, r, f, db)
}

// doctorFederationKeys says which federation key signs and, during a
// staged rollover, since when the next one is published and from when it
// may sign (docs/design.md §13).
func doctorFederationKeys(ctx context.Context, r *doctorReport, f *serveFlags, db *store.DB) {
	keys, err := db.ListFederationKeys(ctx)
	if err != nil {
		r.fail("federation signing key", "%v", err)
		return
	}
	wait := f.fedLifetime
	if p := f.fedPrepublish.value(); p != nil {
		wait = *p
	}
	signing := false
	for _, k := range keys {
		switch k.Status {
		case "Active":
			signing = true
			r.ok("federation signing key", "kid %s (%s) signs", k.Kid, k.Alg)
		case "Next":
			// The instant stored when the key was prepared; a key prepared
			// before migration 0031 has none and is reckoned as serve
			// reckons it, from these flags (docs/decisions.md).
			from, how := k.CreatedAt.Add(wait), " (prepared before migration 0031: reckoned from --federation-key-prepublish)"
			if k.MaySignFrom != nil {
				from, how = *k.MaySignFrom, ""
			}
			r.ok("federation next key", "kid %s published since %s, may sign from %s%s (keys activate --federation)",
				k.Kid, k.CreatedAt.UTC().Format(time.RFC3339), from.UTC().Format(time.RFC3339), how)
		}
	}
	if !signing {
		r.warn("federation signing key", "none yet; serve makes one at start")
	}
}

// doctorSuperUsers checks that somebody can sign in and administer.
func doctorSuperUsers(ctx context.Context, r *doctorReport, f *serveFlags, db *store.DB) {
	users, err := db.ListSuperUsers(ctx)
	active := 0
	for _, u := range users {
		if u.Status == "Active" {
			active++
		}
	}
	switch {
	case err != nil:
		r.fail("Super Users", "%v", err)
	case active == 0 && f.bootstrap == "":
		r.fail("Super Users", "no Active Super User and no --bootstrap-super-user: nobody can administer the service")
	case active == 0:
		r.warn("Super Users", "none Active yet; serve creates %s at start", f.bootstrap)
	default:
		r.ok("Super Users", "%d Active", active)
	}

}

// doctorBaseURL checks the public URL and returns it.
func doctorBaseURL(r *doctorReport, f *serveFlags) string {
	base := f.baseURL
	if base == "" {
		base = "http://" + f.addr
	}
	if u, err := url.Parse(base); err != nil || u.Host == "" {
		r.fail("base URL", "%q is not a URL", base)
	} else if u.Scheme == "http" && !web.IsLoopbackHost(u.Hostname()) {
		r.fail("base URL", "%s is plain http on a non-loopback host: browsers will not send the Secure session cookie; serve behind https and set --base-url", base)
	} else if u.Scheme == "http" {
		r.warn("base URL", "%s: fine on this machine; others reach it only over https (--base-url)", base)
	} else {
		r.ok("base URL", "%s", base)
	}

	return base
}

// doctorSignIn checks the sign-in issuer and returns whether private
// issuer addresses are allowed.
func doctorSignIn(ctx context.Context, r *doctorReport, f *serveFlags, base string) bool {
	allowPrivate := f.oidcIssuer == "" && !f.devIdPAllowRemote
	if f.allowPrivateIssuers != "" {
		allowPrivate = f.allowPrivateIssuers == "true"
	}
	v := &issuer.Validator{AllowPrivate: allowPrivate}
	if f.oidcIssuer == "" && web.CheckDevIdPBaseURL(base, f.devIdPAllowRemote) != nil {
		r.fail("sign-in issuer", "the development identity provider behind the non-loopback base URL %s: serve refuses to start; set --oidc-issuer (or --dev-idp-allow-remote)", base)
	} else if f.oidcIssuer == "" && f.devIdPAllowRemote {
		r.warn("sign-in issuer", "the development identity provider, open to remote clients (--dev-idp-allow-remote): anyone who reaches it signs in as anyone; set --oidc-issuer")
	} else if f.oidcIssuer == "" {
		r.warn("sign-in issuer", "the development identity provider: anyone who reaches it signs in as any e-mail; set --oidc-issuer in production")
	} else if md, problems := v.Discover(ctx, f.oidcIssuer); len(problems) > 0 {
		r.fail("sign-in issuer", "%s: %s", f.oidcIssuer, problems[0])
	} else {
		r.ok("sign-in issuer", "%s answers its discovery document", f.oidcIssuer)
		userInfoCheck(r, "sign-in e-mail", f.oidcIssuer, f.emailClaim, md.UserinfoEndpoint)
	}

	return allowPrivate
}

// doctorSMTP checks that the mail server answers.
func doctorSMTP(r *doctorReport, f *serveFlags) {
	if f.smtpURL == "" {
		r.warn("SMTP", "none: invitations and expiry notices stay in the outbox (Reference Data > Outbox)")
	} else if addr, err := web.SMTPAddr(f.smtpURL); err != nil {
		r.fail("SMTP", "%v", err)
	} else {
		conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
		if err != nil {
			r.fail("SMTP", "%s does not answer: %v", addr, err)
		} else {
			conn.Close()
			r.ok("SMTP", "%s answers", addr)
		}
	}

}

// doctorIdentityProviders checks that the bound identity providers answer.
func doctorIdentityProviders(ctx context.Context, r *doctorReport, db *store.DB, allowPrivate bool) {
	idps, err := db.ListIdentityProviders(ctx)
	if err != nil {
		r.fail("identity providers", "%v", err)
	}
	pv := &issuer.Validator{AllowPrivate: allowPrivate}
	for _, p := range idps {
		if p.Status != "Active" {
			continue
		}
		if _, problems := pv.CheckProvider(ctx, p.Issuer); len(problems) > 0 {
			r.warn("identity provider", "%s (%s): %s", p.Name, p.Issuer, problems[0])
		} else {
			r.ok("identity provider", "%s (%s) answers its discovery document", p.Name, p.Issuer)
			md, _ := pv.Discover(ctx, p.Issuer)
			userInfoCheck(r, "identity provider e-mail", p.Name+" ("+p.Issuer+")", p.EmailClaim, md.UserinfoEndpoint)
		}
	}
}

// shownDatabase names a database for people: the file, or PostgreSQL's
// host, port and database without the password.
func shownDatabase(path string) string {
	if store.IsPostgresURL(path) {
		return store.Where(path)
	}
	return path
}

// doctorPKI checks the directory's certificate authority (docs/design.md
// §18): its key opens with the KEK and is the certificate's, the
// certificate is valid now, and the CRL in force is in date.
func doctorPKI(ctx context.Context, r *doctorReport, f *serveFlags, db *store.DB) {
	st, err := db.CAState(ctx)
	switch {
	case errors.Is(err, store.ErrNotFound) && f.pki:
		r.warn("certificate authority", "none yet; serve makes it at the first start with --pki")
		return
	case errors.Is(err, store.ErrNotFound):
		return // off, and never made
	case err != nil:
		r.fail("certificate authority", "%v", err)
		return
	}
	kekPath := f.kekFile
	if kekPath == "" {
		kekPath = filepath.Join(f.dataDir, "kek.key")
	}
	kek, err := keyring.LoadKEK(kekPath)
	if err != nil {
		r.fail("certificate authority", "its key is sealed with the KEK, which does not load: %v", err)
		return
	}
	keyDER, err := kek.Open(st.SealedKey, web.CAKeyAAD)
	if err != nil {
		r.fail("certificate authority", "its key does not open with the KEK %s: put back the KEK file it was sealed with", kekPath)
		return
	}
	ca, err := pki.Load(st.CertDER, keyDER)
	if err != nil {
		r.fail("certificate authority", "%v", err)
		return
	}
	now := time.Now()
	c := ca.Cert
	switch {
	case now.Before(c.NotBefore) || now.After(c.NotAfter):
		r.fail("certificate authority", "%s (%s) is valid from %s to %s, not now: it issues nothing relying parties accept",
			c.Subject, st.Alg, c.NotBefore.UTC().Format(time.RFC3339), c.NotAfter.UTC().Format(time.RFC3339))
	case c.NotAfter.Sub(now) < 365*24*time.Hour:
		r.warn("certificate authority", "%s (%s) expires %s, within a year", c.Subject, st.Alg, c.NotAfter.UTC().Format(time.RFC3339))
	default:
		on := "on"
		if !f.pki {
			on = "off (no --pki): kept, not serving"
		}
		r.ok("certificate authority", "%s (%s), key opens with the KEK and matches, valid to %s; %s", c.Subject, st.Alg, c.NotAfter.UTC().Format(time.RFC3339), on)
	}
	if ignored := ignoredPKIFlags(f, st.Alg, c.Subject.String()); f.pki && ignored != "" {
		r.warn("certificate authority flags", "%s only make a CA at the first start: the stored one (%s, %s) is kept and they are ignored", ignored, c.Subject, st.Alg)
	}
	switch {
	case st.CRLDER == nil:
		r.warn("CRL", "none yet; serve makes it at start")
	case now.After(st.CRLAt.Add(24 * time.Hour)):
		r.warn("CRL", "number %d made %s is past its next update; serve makes a new one at start or at the next request of /pki/crl", st.CRLNumber, st.CRLAt.UTC().Format(time.RFC3339))
	default:
		r.ok("CRL", "number %d made %s", st.CRLNumber, st.CRLAt.UTC().Format(time.RFC3339))
	}
}

// ignoredPKIFlags names the --pki-key-alg and --pki-name given that differ
// from the stored CA's (alg, subject): serve keeps the CA and ignores them.
func ignoredPKIFlags(f *serveFlags, alg, subject string) string {
	var differ []string
	if f.pkiKeyAlg != "" && f.pkiKeyAlg != alg {
		differ = append(differ, "--pki-key-alg "+f.pkiKeyAlg)
	}
	if n, err := pki.ParseName(f.pkiName); f.pkiName != "" && err == nil && n.String() != subject {
		differ = append(differ, "--pki-name "+f.pkiName)
	}
	return strings.Join(differ, " and ")
}
