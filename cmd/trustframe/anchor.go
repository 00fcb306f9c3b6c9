package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/trustframe/trustframe/federation/anchor"
)

// cmdAnchor runs a standalone OpenID Federation trust anchor from a file,
// with no directory and no database (docs/design.md §8). SIGHUP re-reads the file;
// a bad new file keeps the old one serving.
func cmdAnchor(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("anchor", flag.ContinueOnError)
	config := fs.String("config", "", "the anchor's configuration file (YAML)")
	addr := fs.String("addr", "127.0.0.1:8090", "address to listen on")
	if err := parseFlags(fs, args, getenv, stderr); err != nil {
		return err
	}
	if *config == "" {
		return fmt.Errorf("%w: --config FILE is required", errUsage)
	}
	if err := checkListenAddr("--addr", *addr); err != nil {
		return err
	}
	log := slog.New(slog.NewTextHandler(stderr, nil))
	a, err := anchor.Load(*config)
	if err != nil {
		return err
	}
	srv := anchor.NewServer(a)
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	hs := &http.Server{Handler: srv, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second, WriteTimeout: 30 * time.Second}
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	go func() {
		for {
			select {
			case <-ctx.Done():
				return
			case <-hup:
				next, err := anchor.Load(*config)
				if err != nil {
					log.Error("configuration not reloaded; the previous one keeps serving", "err", err)
					continue
				}
				srv.Replace(next)
				log.Info("configuration reloaded", "file", *config)
			}
		}
	}()
	fmt.Fprintf(stdout, "trust anchor listening on http://%s (entity configuration at /.well-known/openid-federation)\n", ln.Addr())
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		if !errors.Is(err, http.ErrServerClosed) {
			return err
		}
		return nil
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return hs.Shutdown(sctx)
}
