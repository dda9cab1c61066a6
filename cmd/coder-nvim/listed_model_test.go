package main

import (
	"os"
	"strings"
	"testing"

	"github.com/coder-nvim/coder-nvim/core/fakellm"
)

// TestExecListedModel (issue 39, newcomer item 4): with only
// OPENAI_BASE_URL set, as for LM Studio or vLLM, the first request uses a
// model the endpoint lists rather than the preset's default it does not
// serve, and exec says which; a configured model is kept.
func TestExecListedModel(t *testing.T) {
	bin := hostBinary(t)
	srv := fakellm.New()
	defer srv.Close()
	srv.SetModels([]string{"local-model-a", "local-model-b"})
	dir := gitRepo(t)
	base := append(os.Environ(), "OPENAI_BASE_URL="+srv.URL(), "OPENAI_API_KEY=test", "XDG_CONFIG_HOME="+t.TempDir(), "CODER_MODEL=")
	tests := []struct {
		name, env, want string
	}{
		{"listed", "", "local-model-a"},
		{"configured", "CODER_MODEL=my-model", "my-model"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv.Reset()
			srv.Enqueue(fakellm.Reply{Content: "hi"})
			env := base
			if tt.env != "" {
				env = append(append([]string(nil), base...), tt.env)
			}
			r := execWithEnv(t, bin, dir, env, "hello")
			if r.code != 0 {
				t.Fatalf("exit %d\n%s", r.code, r.stderr)
			}
			reqs := srv.Requests()
			if len(reqs) == 0 || reqs[len(reqs)-1].Model != tt.want {
				t.Fatalf("model sent: %+v, want %s\n%s", reqs, tt.want, r.stderr)
			}
			if said := strings.Contains(r.stderr, "the first the endpoint lists"); said != (tt.name == "listed") {
				t.Errorf("stderr says the choice: %v\n%s", said, r.stderr)
			}
		})
	}
}
