package agent

import (
	"strings"
	"testing"

	"github.com/coder-nvim/coder-nvim/core/fakellm"
	"github.com/coder-nvim/coder-nvim/core/llm"
	"github.com/coder-nvim/coder-nvim/core/store"
)

func TestSubmitImages(t *testing.T) {
	f := newFixture(t, nil)
	img := llm.Image{URL: "data:image/png;base64,iVBORw0KGgo="}
	if _, err := f.sess.SubmitImages("/mode plan", []llm.Image{img}); err == nil || !strings.Contains(err.Error(), "command") {
		t.Fatalf("images on a command: err %v", err)
	}
	f.srv.Enqueue(fakellm.Reply{Content: "a dot"})
	if _, err := f.sess.SubmitImages("what is [image 1]?", []llm.Image{img}); err != nil {
		t.Fatal(err)
	}
	f.sess.Wait()
	reqs := f.srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	last := reqs[0].Messages[len(reqs[0].Messages)-1]
	if last.Content != "what is [image 1]?" || len(last.Images) != 1 || last.Images[0] != img {
		t.Errorf("user message sent as %+v", last)
	}
	// The image is kept with the message, so a resumed session replays it.
	f.sess.saver.flush()
	snap, err := store.Load(store.Dir(f.root), string(f.sess.ID()))
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, m := range snap.Messages {
		found = found || (m.Role == llm.RoleUser && len(m.Images) == 1 && m.Images[0] == img)
	}
	if !found {
		t.Errorf("the saved session lost the image: %+v", snap.Messages)
	}
}
