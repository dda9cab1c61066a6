package acp_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"github.com/coder-nvim/coder-nvim/core/llm"
	sdk "github.com/coder/acp-go-sdk"
)

// TestWebFetchPermission: a fetch from a new host is asked with the
// fetch kind, and its tool call is a fetch.
func TestWebFetchPermission(t *testing.T) {
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, "plain page") }))
	defer site.Close()
	cfg := t.TempDir()
	if err := os.MkdirAll(filepath.Join(cfg, "coder"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cfg, "coder", "config.json"), []byte(`{"web": {"allow_private": true}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, envOptions{env: []string{"XDG_CONFIG_HOME=" + cfg}})
	sid, _ := e.newSession()
	e.client.permit = func(context.Context, sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
		return selectOption("allow_once"), nil
	}
	e.llm.Enqueue(
		fakellm.Reply{ToolCalls: []llm.ToolCall{call("call_f", "web_fetch", map[string]string{"url": site.URL + "/doc"})}},
		fakellm.Reply{Content: "Read it."},
	)
	e.mustPrompt(sid, "read the doc", sdk.StopReasonEndTurn)
	perms := e.client.permissions()
	if len(perms) != 1 || perms[0].ToolCall.Kind == nil || *perms[0].ToolCall.Kind != sdk.ToolKindFetch {
		t.Fatalf("permission requests %+v: want one of kind fetch", perms)
	}
	calls := toolCalls(e.client.snapshot())
	if len(calls) != 1 || calls[0].Kind != sdk.ToolKindFetch {
		t.Fatalf("tool calls %+v: want one fetch", calls)
	}
}
