package acp_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coder-nvim/coder-nvim/core/agentsmd"
	"github.com/coder-nvim/coder-nvim/core/fakellm"
	sdk "github.com/coder/acp-go-sdk"
)

// agentsMDInfo is the agents_md list of the newest session_info_update
// that has one.
func agentsMDInfo(ups []sdk.SessionNotification) ([]agentsmd.File, bool) {
	var files []agentsmd.File
	found := false
	for _, u := range ups {
		info := u.Update.SessionInfoUpdate
		if info == nil {
			continue
		}
		data, _ := json.Marshal(info.Meta["coder-nvim"])
		var meta struct {
			AgentsMD *[]agentsmd.File `json:"agents_md"`
		}
		if json.Unmarshal(data, &meta) == nil && meta.AgentsMD != nil {
			files, found = *meta.AgentsMD, true
		}
	}
	return files, found
}

// ACP lists the AGENTS.md files a session was given as session info, and
// offers /init, which starts a turn asking for AGENTS.md.
func TestAgentsMDAndInitOverACP(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "AGENTS.md"), []byte("use tabs\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, envOptions{root: root})
	sid, _ := e.newSession()
	e.client.waitFor(t, "agents_md session info", func() bool {
		files, ok := agentsMDInfo(e.client.snapshot())
		return ok && len(files) == 1 && files[0].Path == "AGENTS.md" && files[0].Size == 9 && files[0].Sent == 9
	})
	e.client.waitFor(t, "/init among the available commands", func() bool {
		for _, u := range e.client.snapshot() {
			if a := u.Update.AvailableCommandsUpdate; a != nil {
				for _, c := range a.AvailableCommands {
					if c.Name == "init" && strings.Contains(c.Description, "AGENTS.md") {
						return true
					}
				}
			}
		}
		return false
	})

	e.llm.Enqueue(fakellm.Reply{Content: "AGENTS.md is fine as it is"})
	e.mustPrompt(sid, "/init", sdk.StopReasonEndTurn)
	reqs := e.llm.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	msgs := reqs[0].Messages
	if !strings.Contains(msgs[1].Content, "use tabs") || !strings.Contains(msgs[len(msgs)-1].Content, "write AGENTS.md") {
		t.Errorf("request = %+v", msgs)
	}
	if files, ok := agentsMDInfo(e.client.snapshot()); !ok || len(files) != 1 {
		t.Errorf("turn-end session info agents_md = %+v", files)
	}
}
