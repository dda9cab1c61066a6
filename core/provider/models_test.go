package provider

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"github.com/coder-nvim/coder-nvim/core/llm"
)

// TestModelsWindows: GET /models gives each model's context window under
// the names endpoints use for it.
func TestModelsWindows(t *testing.T) {
	for _, c := range []struct {
		name, body string
		want       []llm.Model
	}{
		{"openai", `{"object":"list","data":[{"id":"gpt-4o","object":"model"},{"id":"a-model"}]}`, []llm.Model{{ID: "a-model"}, {ID: "gpt-4o"}}},
		{"openrouter", `{"data":[{"id":"anthropic/claude-sonnet-4","context_length":200000,"top_provider":{"context_length":100000}},{"id":"x/y","top_provider":{"context_length":32000}}]}`,
			[]llm.Model{{ID: "anthropic/claude-sonnet-4", ContextWindow: 200000}, {ID: "x/y", ContextWindow: 32000}}},
		{"groq", `{"data":[{"id":"llama-3.3-70b-versatile","context_window":131072}]}`, []llm.Model{{ID: "llama-3.3-70b-versatile", ContextWindow: 131072}}},
		{"copilot", `{"data":[{"id":"gpt-4.1","capabilities":{"limits":{"max_context_window_tokens":128000}}},{"id":"gpt-4.1"}]}`, []llm.Model{{ID: "gpt-4.1", ContextWindow: 128000}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path != "/v1/models" || r.Header.Get("Authorization") != "Bearer k" {
					http.Error(w, "no", http.StatusBadRequest)
					return
				}
				fmt.Fprint(w, c.body)
			}))
			defer srv.Close()
			got, err := NewOpenAI(Options{BaseURL: srv.URL + "/v1", APIKey: "k"}).Models(context.Background())
			if err != nil || fmt.Sprint(got) != fmt.Sprint(c.want) {
				t.Fatalf("models %v %v, want %v", got, err, c.want)
			}
		})
	}
}

// TestModelsFakeServer: fakellm's list carries context_length; without a
// list it answers 404, an *Error with that status (no list, for callers).
func TestModelsFakeServer(t *testing.T) {
	srv := fakellm.New()
	defer srv.Close()
	p := NewOpenAI(Options{BaseURL: srv.URL(), APIKey: "k", Provider: "openrouter", KeyEnv: "OPENROUTER_API_KEY"})
	_, err := p.Models(context.Background())
	var pe *Error
	if !errors.As(err, &pe) || pe.StatusCode != http.StatusNotFound {
		t.Fatalf("no list: %v", err)
	}
	srv.SetModelList([]fakellm.Model{{ID: "b", ContextLength: 1000}, {ID: "a"}})
	got, err := p.Models(context.Background())
	if err != nil || fmt.Sprint(got) != fmt.Sprint([]llm.Model{{ID: "a"}, {ID: "b", ContextWindow: 1000}}) {
		t.Fatalf("models %v %v", got, err)
	}
	bad := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, `{"error":{"message":"bad key"}}`, http.StatusUnauthorized)
	}))
	defer bad.Close()
	_, err = NewOpenAI(Options{BaseURL: bad.URL, APIKey: "secret", Provider: "openrouter", KeyEnv: "OPENROUTER_API_KEY"}).Models(context.Background())
	if !errors.As(err, &pe) || pe.StatusCode != 401 || !strings.Contains(err.Error(), "OPENROUTER_API_KEY") || strings.Contains(err.Error(), "secret") {
		t.Fatalf("401: %v", err)
	}
}
