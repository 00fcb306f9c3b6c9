package web

import (
	"context"

	"github.com/alexedwards/scs/v2"
)

// flasher keeps flash messages in the session.
type flasher struct{ sm *scs.SessionManager }

func (f flasher) Put(ctx context.Context, msg string) { f.sm.Put(ctx, "flash", msg) }
func (f flasher) Pop(ctx context.Context) string      { return f.sm.PopString(ctx, "flash") }
