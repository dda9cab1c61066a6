package mcp

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/coder-nvim/coder-nvim/core/event"
	"github.com/coder-nvim/coder-nvim/core/mcp/elicitserver"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestElicitFormChecks(t *testing.T) {
	e, err := ParseElicitation("s", &sdk.ElicitParams{Message: "m", RequestedSchema: json.RawMessage(elicitserver.FormSchema)})
	if err != nil {
		t.Fatal(err)
	}
	if len(e.Fields) != 4 || e.Fields[0].Name != "age" || !e.Fields[0].Required || e.Fields[1].Enum[2] != "blue" {
		t.Fatalf("fields = %+v", e.Fields)
	}
	tests := []struct {
		in      map[string]any
		want    map[string]any
		wantErr string
	}{
		{map[string]any{"name": "Ada", "age": "36", "subscribe": "false", "color": ""}, nil, "color: want one of red, green, blue"},
		{map[string]any{"name": "Ada", "age": "36", "subscribe": ""}, map[string]any{"name": "Ada", "age": int64(36)}, ""},
		{map[string]any{"name": "Ada", "age": float64(3), "subscribe": true, "color": "red"}, map[string]any{"name": "Ada", "age": int64(3), "subscribe": true, "color": "red"}, ""},
		{map[string]any{"name": "", "age": "3.5"}, nil, "Name: at least 1 characters; age: want a whole number"},
		{map[string]any{"name": "x", "age": "-1"}, nil, "age: at least 0"},
		{map[string]any{"age": "1", "subscribe": "maybe"}, nil, "Name: required; subscribe: want true or false"},
		{map[string]any{"name": "x", "age": "1", "extra": "y"}, nil, "extra: not a field"},
	}
	for _, tc := range tests {
		got, err := CheckElicitValues(e, tc.in)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%v: err = %v, want %q", tc.in, err, tc.wantErr)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%v: got %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
	for _, bad := range []*sdk.ElicitParams{
		{Mode: "url", URL: "file:///etc/passwd"},
		{Mode: "url", URL: "javascript:alert(1)"},
		{Mode: "other"},
	} {
		if _, err := ParseElicitation("s", bad); err == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
}

// The time the user takes to answer does not count toward the call's
// timeout: a question answered after three timeouts still gets the
// server's result.
func TestElicitPausesCallTimeout(t *testing.T) {
	srv := elicitserver.New()
	t.Cleanup(srv.Close)
	const timeout = 300 * time.Millisecond
	p := newPool(t, Options{CallTimeout: timeout, Servers: map[string]ServerConfig{"ask": {URL: srv.URL}},
		Elicit: func(ctx context.Context, _ string, e *event.Elicitation) (string, map[string]any, error) {
			select { // the user thinks
			case <-time.After(3 * timeout):
			case <-ctx.Done():
				return ElicitCancel, nil, nil
			}
			return ElicitAccept, map[string]any{"go": true}, nil
		}})
	cat := ready(t, p, "ask")
	v, _ := p.View(nil)
	if res := v.Call(context.Background(), cat, "ask__confirm", json.RawMessage(`{}`), 0); res.Text != `action=accept content={"go":true}` {
		t.Fatalf("result = %q", res.Text)
	}
}
