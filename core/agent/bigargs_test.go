package agent

import (
	"context"
	"encoding/base64"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder-nvim/coder-nvim/core/config"
	"github.com/coder-nvim/coder-nvim/core/event"
	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"github.com/coder-nvim/coder-nvim/core/llm"
	"github.com/coder-nvim/coder-nvim/core/provider"
	"github.com/coder-nvim/coder-nvim/core/store"
)

// TestOversizeToolArgumentsDropped: an image in a conv_create item over
// the cap of one call's arguments (provider.MaxToolArguments, here lowered
// to 64 KiB so the test streams little) ends the answer with a clear error
// as it streams: nothing of it is kept, so the session files stay small.
func TestOversizeToolArgumentsDropped(t *testing.T) {
	srv := fakellm.New()
	t.Cleanup(srv.Close)
	f := newFixture(t, func(_ *config.Config, o *Options) {
		o.Provider = provider.NewOpenAI(provider.Options{BaseURL: srv.URL(), APIKey: "k", BaseBackoff: time.Millisecond, MaxAttempts: 2, MaxToolArguments: 64 << 10})
	})
	f.srv = srv
	img := "data:image/png;base64," + base64.StdEncoding.EncodeToString(make([]byte, 96<<10))
	f.srv.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{call("c", "conv_create", map[string]any{
			"items": []map[string]any{{"type": "text", "text": "look"}, {"type": "image_url", "image_url": img}}})}},
		fakellm.Reply{Content: "done"},
	)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	_ = f.sess.Run(ctx, "hand it over")
	var errs []string
	for _, ev := range f.rec.find(event.Error) {
		errs = append(errs, ev.Text)
	}
	if !strings.Contains(strings.Join(errs, "\n"), "arguments over 0.0625 MiB") {
		t.Errorf("no error naming the cap: %q", errs)
	}
	f.sess.Close()
	var total int64
	filepath.WalkDir(store.Dir(f.root), func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if info, err := d.Info(); err == nil {
				total += info.Size()
			}
		}
		return nil
	})
	if total > 64<<10 {
		t.Errorf("the session files hold %d bytes: the oversize arguments were kept", total)
	}
}
