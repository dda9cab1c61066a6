package backend

import (
	"context"
	"strings"
	"testing"

	"github.com/coder-nvim/coder-nvim/core/fakellm"
)

// ModelIDs and Check ask the endpoint's GET /models: a listing gives its
// ids and counts as reachable, a 404 is reachable without a list, a
// closed port is neither; no backend is "no provider".
func TestModelIDsAndCheck(t *testing.T) {
	var none *Backend
	if ids, err := none.ModelIDs(context.Background()); err == nil || ids != nil {
		t.Errorf("nil ModelIDs = %v, %v", ids, err)
	}
	if ok, msg := none.Check(context.Background()); ok || msg != "no provider" {
		t.Errorf("nil Check = %v %q", ok, msg)
	}
	srv := fakellm.New()
	cfg := loadConfig(t, `{"provider":"groq","base_url":"`+srv.URL()+`/"}`, map[string]string{"GROQ_API_KEY": "secret-k"})
	be, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer be.Close()
	if _, err := be.ModelIDs(context.Background()); err == nil {
		t.Error("ModelIDs without /models: no error")
	}
	if ok, msg := be.Check(context.Background()); !ok || msg != "GET "+srv.URL()+"/models: HTTP 404 (the endpoint answers; some servers have no /models)" {
		t.Errorf("no /models: %v %q", ok, msg)
	}
	srv.SetModels([]string{"m1", "m2"})
	if ids, err := be.ModelIDs(context.Background()); err != nil || strings.Join(ids, ",") != "m1,m2" {
		t.Errorf("ModelIDs = %v, %v", ids, err)
	}
	if ok, msg := be.Check(context.Background()); !ok || msg != "GET "+srv.URL()+"/models: HTTP 200 (2 models)" {
		t.Errorf("listed: %v %q", ok, msg)
	}
	srv.Close()
	if ok, msg := be.Check(context.Background()); ok || !strings.HasPrefix(msg, "GET "+srv.URL()+"/models: ") {
		t.Errorf("closed: %v %q", ok, msg)
	}
}
