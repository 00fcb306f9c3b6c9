package web_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/trustframe/trustframe/store/storetest"
	"github.com/trustframe/trustframe/web/webtest"
)

// pgProxy forwards 127.0.0.1:port to a PostgreSQL server; stop cuts every
// connection and refuses new ones (the database "goes away"), start
// listens on the same port again (it comes back).
type pgProxy struct {
	t      *testing.T
	target func() (net.Conn, error)
	addr   string
	mu     sync.Mutex
	l      net.Listener
	conns  []net.Conn
}

func newPGProxy(t *testing.T, database string) (*pgProxy, string) {
	cfg, err := pgx.ParseConfig(database)
	if err != nil {
		t.Fatal(err)
	}
	network, address := "tcp", net.JoinHostPort(cfg.Host, strconv.Itoa(int(cfg.Port)))
	if strings.HasPrefix(cfg.Host, "/") {
		network, address = "unix", filepath.Join(cfg.Host, fmt.Sprintf(".s.PGSQL.%d", cfg.Port))
	}
	p := &pgProxy{t: t, target: func() (net.Conn, error) { return net.Dial(network, address) }, addr: "127.0.0.1:0"}
	p.start()
	t.Cleanup(p.stop)
	u := url.URL{Scheme: "postgres", User: url.UserPassword(cfg.User, cfg.Password), Host: p.addr, Path: "/" + cfg.Database, RawQuery: "sslmode=disable"}
	if cfg.Password == "" {
		u.User = url.User(cfg.User)
	}
	return p, u.String()
}

func (p *pgProxy) start() {
	p.mu.Lock()
	defer p.mu.Unlock()
	l, err := net.Listen("tcp", p.addr)
	if err != nil {
		p.t.Fatal(err)
	}
	p.l, p.addr = l, l.Addr().String()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			up, err := p.target()
			if err != nil {
				c.Close()
				continue
			}
			p.mu.Lock()
			p.conns = append(p.conns, c, up)
			p.mu.Unlock()
			go func() { io.Copy(up, c); up.Close() }()
			go func() { io.Copy(c, up); c.Close() }()
		}
	}()
}

func (p *pgProxy) stop() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.l != nil {
		p.l.Close()
		p.l = nil
	}
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}

// TestDatabaseUnavailableWhileServing: PostgreSQL goes away under a running
// server: requests that need it are 503 with Retry-After and a problem body
// (never a 500), the server keeps running, and once the database is back
// the same requests succeed without a restart.
func TestDatabaseUnavailableWhileServing(t *testing.T) {
	if !storetest.Postgres() {
		t.Skip("needs a database server to lose: SQLite is a file inside the process (TRUSTFRAME_TEST_POSTGRES)")
	}
	proxy, database := newPGProxy(t, storetest.Path(t))
	env := webtest.StartOn(t, t.TempDir(), database, nil)
	a := newAPI(t, env, "admin@example.com")
	if resp, body := a.do("POST", "/organisations", `{"OrganisationName":"Before","RegistrationNumber":"B1","CountryOfRegistration":"GB","Status":"Active"}`); resp.StatusCode != http.StatusCreated {
		t.Fatalf("create: %d %v", resp.StatusCode, body)
	}

	proxy.stop()
	for _, r := range []struct{ method, path, body string }{
		{"GET", "/organisations", ""},
		{"GET", "/organisations?q=before", ""},
		{"POST", "/organisations", `{"OrganisationName":"During","RegistrationNumber":"D1","CountryOfRegistration":"GB","Status":"Active"}`},
	} {
		resp, body := a.do(r.method, r.path, r.body)
		if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" ||
			!strings.HasPrefix(resp.Header.Get("Content-Type"), "application/problem+json") {
			t.Fatalf("%s %s with the database away: %d Retry-After %q %s %v", r.method, r.path, resp.StatusCode,
				resp.Header.Get("Retry-After"), resp.Header.Get("Content-Type"), body)
		}
	}
	resp, err := http.Get(env.URL + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("readyz with the database away: %d", resp.StatusCode)
	}

	proxy.start()
	deadline := time.Now().Add(10 * time.Second)
	for {
		resp, body := a.do("GET", "/organisations", "")
		if resp.StatusCode == http.StatusOK {
			b, _ := json.Marshal(body)
			if !strings.Contains(string(b), "Before") || strings.Contains(string(b), "During") {
				t.Fatalf("after recovery: %s", b)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal(errors.New("no recovery: " + resp.Status))
		}
		time.Sleep(100 * time.Millisecond)
	}
	if resp, body := a.do("POST", "/organisations", `{"OrganisationName":"After","RegistrationNumber":"A1","CountryOfRegistration":"GB","Status":"Active"}`); resp.StatusCode != http.StatusCreated {
		t.Fatalf("create after recovery: %d %v", resp.StatusCode, body)
	}
}
