package agent

import (
	"testing"
	"time"

	"github.com/coder-nvim/coder-nvim/core/config"
	"github.com/coder-nvim/coder-nvim/core/fakellm"
)

// TestLastActiveAt (seed 000 §5): a conversation's last_active_at is
// refreshed when a message is recorded (seen while its task still runs)
// and when a task completes (a / command records no message).
func TestLastActiveAt(t *testing.T) {
	clk := newFakeClock()
	f := newFixture(t, func(_ *config.Config, o *Options) { clk.use(o) })
	t0 := clk.Now()
	id, err := f.sess.OpenConversation("", nil)
	if err != nil {
		t.Fatal(err)
	}
	lastActive := func() time.Time {
		for _, c := range f.sess.Conversations() {
			if c.ID == id {
				return c.LastActive
			}
		}
		t.Fatal("conversation gone")
		return time.Time{}
	}
	if got := lastActive(); !got.Equal(t0) {
		t.Fatalf("opened: last_active_at %s, want %s", got, t0)
	}
	clk.advance(time.Minute)
	t1 := clk.Now()
	var during time.Time
	f.srv.SetScript(func(fakellm.Request) fakellm.Reply {
		during = lastActive() // the user's message is recorded, the task runs
		clk.advance(time.Minute)
		return fakellm.Reply{Content: "hi"}
	})
	if _, err := f.sess.SubmitTo(id, "hello"); err != nil {
		t.Fatal(err)
	}
	f.sess.Wait()
	if !during.Equal(t1) {
		t.Errorf("while the task ran: last_active_at %s, want the user message's %s", during, t1)
	}
	if got, want := lastActive(), t1.Add(time.Minute); !got.Equal(want) {
		t.Errorf("after the answer: last_active_at %s, want %s", got, want)
	}
	clk.advance(time.Hour)
	if _, err := f.sess.SubmitTo(id, "/status"); err != nil {
		t.Fatal(err)
	}
	f.sess.Wait()
	if got, want := lastActive(), clk.Now(); !got.Equal(want) {
		t.Errorf("after a command's task completed: last_active_at %s, want %s", got, want)
	}
}
