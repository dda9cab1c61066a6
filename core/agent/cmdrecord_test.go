package agent

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coder-nvim/coder-nvim/core/config"
	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"github.com/coder-nvim/coder-nvim/core/store"
)

// TestCommandResultsRecorded: / command results are written into the
// session (seed 001 §4), never sent to the model, and come back on resume
// where they ran; under headers_only only their size is kept.
func TestCommandResultsRecorded(t *testing.T) {
	for _, storage := range []string{"full", "headers_only"} {
		t.Run(storage, func(t *testing.T) {
			f := newFixture(t, func(c *config.Config, _ *Options) { c.Storage.Policy = storage })
			writeFile(t, filepath.Join(f.root, "x.txt"), "one\n")
			f.srv.Enqueue(fakellm.Reply{Content: "hello"}, fakellm.Reply{Content: "again"})
			f.run(t, "first")
			f.run(t, "/diff")
			f.run(t, "second")
			for _, r := range f.srv.Requests() {
				if strings.Contains(string(r.Raw), "x.txt") {
					t.Fatalf("a command result reached the model: %.500s", r.Raw)
				}
			}
			id := f.sess.ID()
			f.sess.Close()
			data, err := os.ReadFile(filepath.Join(store.Dir(f.root), string(id)+".json"))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(data), `"input":"/diff"`) {
				t.Errorf("session file lacks the /diff result:\n%.1500s", data)
			}
			again := mustResume(t, f.sess.opts, id)
			cmds := again.Commands("")
			if len(cmds) != 1 || cmds[0].Input != "/diff" || cmds[0].At != 2 {
				t.Fatalf("resumed commands = %+v, want /diff after the first two messages", cmds)
			}
			if full := strings.Contains(cmds[0].Output, "x.txt"); full != (storage == "full") {
				t.Errorf("%s keeps output %q", storage, cmds[0].Output)
			}
		})
	}
}
