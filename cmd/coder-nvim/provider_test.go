package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder-nvim/coder-nvim/core/fakellm"
)

// execBounded is execHost with a deadline: a hang is a failure, not a
// stuck test run.
func execBounded(t *testing.T, bin, dir, baseURL string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, append([]string{"exec", "--cwd", dir}, args...)...)
	cmd.Env = append(os.Environ(), "OPENAI_BASE_URL="+baseURL, "OPENAI_API_KEY=test", "XDG_CONFIG_HOME="+t.TempDir())
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("exec hung; stderr so far:\n%s", errb.String())
	}
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return result{out.String(), errb.String(), code}
}

// A server that answers with headers and then nothing (or a 503 without
// its body) used to hang exec forever.
func TestExecStreamIdleTimeout(t *testing.T) {
	bin := hostBinary(t)
	srv := fakellm.New()
	defer srv.Close()
	tests := []struct {
		name    string
		replies []fakellm.Reply
		code    int
		stdout  string
		stderr  []string
	}{
		{"silent twice: a clear error", []fakellm.Reply{{Hang: true}, {Status: 503, Hang: true}}, 1, "",
			[]string{"note: no data from the model server; retrying in 1 s\n", "error: provider: the server stopped sending for 0.5 s (stream_idle_timeout)"}},
		{"silent once: the retry answers", []fakellm.Reply{{Hang: true}, {Content: "answer after the retry"}}, 0, "answer after the retry\n",
			[]string{"note: no data from the model server; retrying in 1 s\n"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv.Reset()
			before := len(srv.Requests())
			dir := gitRepo(t)
			if err := os.MkdirAll(filepath.Join(dir, ".coder"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, ".coder", "config.json"), []byte(`{"stream_idle_timeout":"500ms"}`), 0o644); err != nil {
				t.Fatal(err)
			}
			trustWorkspace(t, dir)
			srv.Enqueue(tt.replies...)
			srv.Enqueue(fakellm.Reply{Content: "must not be reached"})
			r := execBounded(t, bin, dir, srv.URL(), "hi")
			if r.code != tt.code || r.stdout != tt.stdout {
				t.Fatalf("exit %d stdout %q, want %d %q\nstderr:\n%s", r.code, r.stdout, tt.code, tt.stdout, r.stderr)
			}
			for _, w := range tt.stderr {
				if strings.Count(r.stderr, w) != 1 {
					t.Errorf("stderr should say %q once:\n%s", w, r.stderr)
				}
			}
			if n := len(srv.Requests()) - before; n != 2 {
				t.Errorf("%d requests, want 2 (one retry)", n)
			}
		})
	}
}

func TestExecShowsRateLimitWait(t *testing.T) {
	bin := hostBinary(t)
	srv := fakellm.New()
	defer srv.Close()
	srv.Enqueue(fakellm.Reply{Status: 429, RetryAfter: "1"}, fakellm.Reply{Content: "after the wait"})
	r := execBounded(t, bin, gitRepo(t), srv.URL(), "hi")
	if r.code != 0 || r.stdout != "after the wait\n" {
		t.Fatalf("exit %d stdout %q stderr %s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stderr, "note: rate limited; retrying in 1 s (attempt 2 of 4)\n") {
		t.Errorf("stderr does not show the wait:\n%s", r.stderr)
	}
}
