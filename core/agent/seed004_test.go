package agent

import (
	"context"
	"errors"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder-nvim/coder-nvim/core/config"
	"github.com/coder-nvim/coder-nvim/core/event"
	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"github.com/coder-nvim/coder-nvim/core/hostpath"
	"github.com/coder-nvim/coder-nvim/core/llm"
	"github.com/coder-nvim/coder-nvim/core/tools"
)

// renamedTool is a built-in offered under another name.
type renamedTool struct {
	tools.Tool
	name string
}

func (r renamedTool) Spec() llm.Tool {
	s := r.Tool.Spec()
	s.Function.Name = r.name
	return s
}

// TestOpenRefusesToolNamedLikeConversationTool: a built-in tool named
// like a conversation tool is refused when the session opens, naming it
// (seed 004: ErrToolConflict); another name opens.
func TestOpenRefusesToolNamedLikeConversationTool(t *testing.T) {
	for _, name := range []string{"conv_create", "conv_send", "conv_list", "conv_history", "conv_destroy", "my_read"} {
		t.Run(name, func(t *testing.T) {
			f := newFixture(t, nil)
			opts := f.sess.opts
			opts.Root = gitRepo(t)
			opts.Tools = append(tools.Builtins(hostpath.Resolve(os.Getenv("PATH"), "")), renamedTool{tools.Builtins(hostpath.Resolve(os.Getenv("PATH"), ""))[0], name})
			s, err := Open(opts)
			if name == "my_read" {
				if err != nil {
					t.Fatalf("a tool of its own name refused: %v", err)
				}
				s.Close()
				return
			}
			if err == nil {
				s.Close()
				t.Fatalf("a built-in named %s was accepted", name)
			}
			if !errors.Is(err, ErrToolConflict) || !strings.Contains(err.Error(), name) {
				t.Errorf("error = %v, want ErrToolConflict naming %s", err, name)
			}
		})
	}
}

// TestSlowEventConsumerLosesNothing: a front end that takes its time
// over events (exec writing to a full pipe, an ACP client reading
// slowly) holds the session back, and loses nothing: every delta arrives,
// in order, and the turn ends once they are taken (seed 004 §14,
// backpressure).
func TestSlowEventConsumerLosesNothing(t *testing.T) {
	release := make(chan struct{})
	var mu sync.Mutex
	var got []event.Event
	blocked := make(chan struct{}, 1)
	f := newFixture(t, func(_ *config.Config, o *Options) {
		o.OnEvent = func(ev event.Event) {
			if ev.Kind == event.AgentMessageDelta {
				select {
				case blocked <- struct{}{}:
				default:
				}
				<-release // the consumer is stuck until the test lets go
			}
			mu.Lock()
			got = append(got, ev)
			mu.Unlock()
		}
	})
	answer := strings.Repeat("0123456789", 300)
	f.srv.Enqueue(fakellm.Reply{Content: answer, Chunk: 7})
	done := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		done <- f.sess.Run(ctx, "talk")
	}()
	<-blocked
	// The model is streaming; the session waits for the consumer rather
	// than dropping what it cannot hand over.
	deadline := time.Now().Add(30 * time.Second)
	for len(f.srv.Requests()) == 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	select {
	case err := <-done:
		t.Fatalf("the turn ended while the consumer was stuck: %v", err)
	default:
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	var text strings.Builder
	last := event.Kind("")
	for _, ev := range got {
		if ev.Kind == event.AgentMessageDelta {
			text.WriteString(ev.Text)
		}
		last = ev.Kind
	}
	if text.String() != answer {
		t.Errorf("deltas add up to %d characters, want %d", text.Len(), len(answer))
	}
	if last != event.TaskComplete {
		t.Errorf("last event %s, want %s", last, event.TaskComplete)
	}
}
