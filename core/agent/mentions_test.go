package agent

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder-nvim/coder-nvim/core/config"
	"github.com/coder-nvim/coder-nvim/core/event"
	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"github.com/coder-nvim/coder-nvim/core/mention"
)

// TestSubmitMentions: @path, #diff and the editor's items reach the
// model's request after the user's words; the complexity judgement and
// the transcript's user message see the typed words; a command line takes
// no context.
func TestSubmitMentions(t *testing.T) {
	f := newFixture(t, nil)
	writeFile(t, filepath.Join(f.root, "notes.txt"), "alpha\nbeta\n")
	f.srv.Enqueue(fakellm.Reply{Content: "ok"})
	editor := []mention.Item{{Source: "#buffer", Path: "main.go", Filetype: "go", Text: "package main // unsaved\n", Notes: []string{"unsaved edits included"}},
		// A buffer of a file outside the workspace obeys the tools' rules.
		{Source: "#buffers", Path: "/etc/hostname", Text: "SECRET-OUTSIDE\n"}}
	_, items, err := f.sess.SubmitMentions(context.Background(), "", "see @notes.txt:2 and #diff and @nope.txt", editor)
	if err != nil {
		t.Fatal(err)
	}
	f.sess.Wait()
	if len(items) != 5 || items[1].Err == "" || items[4].Err == "" {
		t.Fatalf("items: %+v", items)
	}
	if strings.Contains(f.srv.Requests()[0].Messages[1].Content, "SECRET-OUTSIDE") {
		t.Error("a buffer outside the workspace was sent to the model")
	}
	user := f.srv.Requests()[0].Messages[1].Content
	for _, want := range []string{
		"see @notes.txt:2 and #diff and @nope.txt\n\n[context #buffer main.go · go · 1 line · unsaved edits included]\n```go\npackage main // unsaved\n```",
		"[context @notes.txt:2-2 · txt · 1 line]\n```txt\nbeta\n```",
		"[context #diff · diff",
		"+alpha",
		"[context @nope.txt · not attached: no such file",
	} {
		if !strings.Contains(user, want) {
			t.Errorf("request lacks %q:\n%s", want, user)
		}
	}
	if ev := f.rec.find(event.UserMessage); len(ev) != 1 || !strings.HasPrefix(user, ev[0].Text) || !strings.Contains(ev[0].Text, "[context @nope.txt") {
		t.Errorf("user message event: %d %q\nrequest %q", len(ev), ev[0].Text, user)
	}
	// A command line runs as typed.
	if _, items, err := f.sess.SubmitMentions(context.Background(), "", "/diff #diff", editor); err != nil || items != nil {
		t.Errorf("command: %v %v", items, err)
	}
	f.sess.Wait()
}

// TestRunMentionsImages: an image mention is an image part when the model
// takes images, a note otherwise.
func TestRunMentionsImages(t *testing.T) {
	for _, images := range []bool{true, false} {
		f := newFixture(t, func(c *config.Config, _ *Options) { c.ModelImages = &images })
		writeFile(t, filepath.Join(f.root, "shot.png"), "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01")
		f.srv.Enqueue(fakellm.Reply{Content: "ok"})
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		items, err := f.sess.RunMentions(ctx, "what is in @shot.png")
		cancel()
		if err != nil || len(items) != 1 {
			t.Fatalf("images=%v: %v %+v", images, err, items)
		}
		m := f.srv.Requests()[0].Messages[1]
		if images && (len(m.Images) != 1 || !strings.HasPrefix(m.Images[0].URL, "data:image/png;base64,") || !strings.Contains(m.Content, "attached as image 1")) {
			t.Errorf("images: %+v", m)
		}
		if !images && (len(m.Images) != 0 || !strings.Contains(m.Content, "model_images is false")) {
			t.Errorf("no images: %+v", m)
		}
	}
}
