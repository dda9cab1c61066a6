package acp_test

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder-nvim/coder-nvim/core/fakellm"
	sdk "github.com/coder/acp-go-sdk"
)

type wireReply struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// TestBadInput speaks raw JSON-RPC: every bad line gets an error with the
// right code and the process keeps serving.
func TestBadInput(t *testing.T) {
	llmSrv := fakellm.New()
	t.Cleanup(llmSrv.Close)
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	p := startProc(t, llmSrv, root, nil)
	replies := make(chan wireReply, 64)
	go func() {
		sc := bufio.NewScanner(p.stdout)
		for sc.Scan() {
			var r wireReply
			if json.Unmarshal(sc.Bytes(), &r) == nil {
				replies <- r
			}
		}
		close(replies)
	}()
	send := func(line string) {
		t.Helper()
		if _, err := io.WriteString(p.stdin, line+"\n"); err != nil {
			t.Fatalf("write %q: %v", line, err)
		}
	}
	next := func(what string) wireReply {
		t.Helper()
		for {
			select {
			case r, ok := <-replies:
				if !ok {
					t.Fatalf("stdout closed waiting for %s; stderr:\n%s", what, p.stderr.String())
				}
				if r.Method != "" {
					continue // a notification
				}
				return r
			case <-time.After(10 * time.Second):
				t.Fatalf("no reply for %s", what)
			}
		}
	}

	for i, tc := range []struct {
		name string
		line string
		id   string // the id the error must carry
		code int
	}{
		{"malformed JSON", `{"jsonrpc":"2.0","id":1,"method":`, "null", -32700},
		{"not an object", `[1,2,3]`, "null", -32600},
		{"no jsonrpc version", `{"id":2,"method":"initialize","params":{}}`, "2", -32600},
		{"method not a string", `{"jsonrpc":"2.0","id":3,"method":7}`, "3", -32600},
		{"unknown method", `{"jsonrpc":"2.0","id":4,"method":"session/fly","params":{}}`, "4", -32601},
		{"wrong params type", `{"jsonrpc":"2.0","id":5,"method":"session/new","params":{"cwd":5,"mcpServers":[]}}`, "5", -32602},
		{"missing params", `{"jsonrpc":"2.0","id":6,"method":"session/new","params":{"mcpServers":[]}}`, "6", -32602},
		{"relative cwd", `{"jsonrpc":"2.0","id":7,"method":"session/new","params":{"cwd":"rel/dir","mcpServers":[]}}`, "7", -32602},
		{"prompt for an unknown session", `{"jsonrpc":"2.0","id":8,"method":"session/prompt","params":{"sessionId":"nope","prompt":[{"type":"text","text":"hi"}]}}`, "8", -32002},
		{"set_mode for an unknown session", `{"jsonrpc":"2.0","id":"s9","method":"session/set_mode","params":{"sessionId":"nope","modeId":"plan"}}`, `"s9"`, -32002},
	} {
		send(tc.line)
		r := next(tc.name)
		if r.Error == nil {
			t.Errorf("%d %s: got result %s, want error %d", i, tc.name, r.Result, tc.code)
			continue
		}
		if r.Error.Code != tc.code {
			t.Errorf("%d %s: error %d %q, want code %d", i, tc.name, r.Error.Code, r.Error.Message, tc.code)
		}
		if string(r.ID) != tc.id {
			t.Errorf("%d %s: reply id %s, want %s", i, tc.name, r.ID, tc.id)
		}
	}

	// A notification for an unknown session gets no answer; the process
	// still serves a real request afterwards.
	send(`{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"nope"}}`)
	send(`{"jsonrpc":"2.0","id":100,"method":"initialize","params":{"protocolVersion":1}}`)
	r := next("initialize")
	if r.Error != nil || string(r.ID) != "100" {
		t.Fatalf("initialize after bad input: %+v", r)
	}
	var init struct {
		ProtocolVersion   int `json:"protocolVersion"`
		AgentCapabilities struct {
			LoadSession        bool `json:"loadSession"`
			PromptCapabilities struct {
				EmbeddedContext bool `json:"embeddedContext"`
			} `json:"promptCapabilities"`
		} `json:"agentCapabilities"`
	}
	if err := json.Unmarshal(r.Result, &init); err != nil {
		t.Fatal(err)
	}
	if init.ProtocolVersion != 1 || !init.AgentCapabilities.LoadSession || !init.AgentCapabilities.PromptCapabilities.EmbeddedContext {
		t.Errorf("initialize result %s", r.Result)
	}
	send(fmt.Sprintf(`{"jsonrpc":"2.0","id":101,"method":"session/new","params":{"cwd":%q,"mcpServers":[]}}`, root))
	if r := next("session/new"); r.Error != nil {
		t.Errorf("session/new after bad input: %+v", r.Error)
	}
}

// TestAdditionalDirectoriesRefused: extra roots the agent does not honour
// are refused with a reason, never ignored in silence.
func TestAdditionalDirectoriesRefused(t *testing.T) {
	e := newEnv(t, envOptions{})
	extra := t.TempDir()
	_, err := e.conn.NewSession(ctxT(t), sdk.NewSessionRequest{Cwd: e.root, McpServers: []sdk.McpServer{}, AdditionalDirectories: []string{extra}})
	var re *sdk.RequestError
	if !errors.As(err, &re) || re.Code != -32602 || !strings.Contains(fmt.Sprint(re.Data), "additionalDirectories ("+extra+") are not supported") {
		t.Fatalf("session/new with additionalDirectories: %v, want invalid params saying they are not supported", err)
	}
	sid, _ := e.newSession()
	_, err = e.conn.LoadSession(ctxT(t), sdk.LoadSessionRequest{SessionId: sid, Cwd: e.root, McpServers: []sdk.McpServer{}, AdditionalDirectories: []string{extra}})
	if requestCode(err) != -32602 {
		t.Errorf("session/load with additionalDirectories: %v, want invalid params", err)
	}
}
