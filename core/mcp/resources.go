package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/coder-nvim/coder-nvim/core/llm"
	"github.com/coder-nvim/coder-nvim/core/mention"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// ResourceReadTool is the tool the model reads a resource with; it is
// offered where the conversation's view includes a server with resources.
const ResourceReadTool = "mcp_resource_read"

// Resource is one resource or resource template a view can mention.
type Resource struct {
	Server   string
	URI      string // for a template, its URI template
	Name     string
	Template bool
}

// Mention is how the user writes it: "server:uri".
func (r Resource) Mention() string { return r.Server + ":" + r.URI }

// servesResources reports whether the view holds a server that declared
// resources.
func (v *View) servesResources() []string {
	var out []string
	for _, srv := range v.servers {
		srv.mu.Lock()
		has := srv.extras.hasResources
		srv.mu.Unlock()
		if has {
			out = append(out, srv.name)
		}
	}
	return out
}

// Resources lists the resources and templates of the view's servers, in
// server order, for completion.
func (v *View) Resources() []Resource {
	var out []Resource
	for _, srv := range v.servers {
		srv.mu.Lock()
		x := srv.extras
		srv.mu.Unlock()
		for _, r := range x.resources {
			if r != nil && r.URI != "" {
				out = append(out, Resource{Server: srv.name, URI: r.URI, Name: r.Name})
			}
		}
		for _, t := range x.templates {
			if t != nil && t.URITemplate != "" {
				out = append(out, Resource{Server: srv.name, URI: t.URITemplate, Name: t.Name, Template: true})
			}
		}
	}
	return out
}

// SplitMention splits "server:uri" when server is configured in the
// pool and uri has a scheme; ok is false for anything else (a path, a
// path:line such as docs:10).
func (p *Pool) SplitMention(tok string) (server, uri string, ok bool) {
	server, uri, ok = strings.Cut(tok, ":")
	if !ok || !strings.Contains(uri, ":") {
		return "", "", false
	}
	if !p.Has(server) {
		return "", "", false
	}
	return server, uri, true
}

// Has reports whether server is configured.
func (p *Pool) Has(server string) bool {
	_, ok := p.servers[server]
	return ok
}

// ResourceText is a read resource as text for the model.
type ResourceText struct {
	Text   string
	Images []llm.Image
	MIME   string
}

// Filetype is the editor filetype of the text's MIME type, "" when none
// is known.
func (r ResourceText) Filetype() string {
	switch r.MIME {
	case "text/markdown":
		return "markdown"
	case "application/json":
		return "json"
	}
	return ""
}

// ReadResource reads uri from server (resources/read) if the view
// includes that server: a conversation whose allowlist leaves the server
// out can neither mention nor read its resources (seed 002).
func (v *View) ReadResource(ctx context.Context, server, uri string) (ResourceText, error) {
	held := false
	for _, srv := range v.servers {
		held = held || srv.name == server
	}
	if !held {
		return ResourceText{}, fmt.Errorf("MCP server %s is not in this conversation's view; its resources cannot be read here", server)
	}
	sess, err := v.pool.liveSession(server)
	if err != nil {
		return ResourceText{}, err
	}
	callCtx, cancel := context.WithTimeout(ctx, v.pool.opts.CallTimeout)
	defer cancel()
	res, err := sess.ReadResource(callCtx, &sdk.ReadResourceParams{URI: uri})
	if err != nil {
		return ResourceText{}, fmt.Errorf("MCP server %s: resources/read %s: %w", server, uri, err)
	}
	var out ResourceText
	var parts []string
	for _, c := range res.Contents {
		if c == nil {
			continue
		}
		if out.MIME == "" {
			out.MIME = c.MIMEType
		}
		switch {
		case c.Text != "" || len(c.Blob) == 0:
			parts = append(parts, c.Text)
		case llm.ImageType(c.MIMEType):
			out.Images = append(out.Images, llm.DataImage(c.MIMEType, c.Blob))
			parts = append(parts, fmt.Sprintf("[image %s: %s, %d bytes]", c.URI, c.MIMEType, len(c.Blob)))
		default:
			parts = append(parts, fmt.Sprintf("[%s: %s, %d bytes of binary data, not shown]", c.URI, c.MIMEType, len(c.Blob)))
		}
	}
	out.Text = strings.Join(parts, "\n")
	return out, nil
}

// ResourceReadSpec is mcp_resource_read as offered to the model, naming
// the servers it may read from.
func (v *View) ResourceReadSpec() (Tool, bool) {
	servers := v.servesResources()
	if len(servers) == 0 {
		return Tool{}, false
	}
	return Tool{
		FQN:         ResourceReadTool,
		Name:        ResourceReadTool,
		Description: "Read a resource of an MCP server by URI (servers: " + strings.Join(servers, ", ") + ").",
		Schema:      json.RawMessage(`{"additionalProperties":false,"properties":{"server":{"description":"the MCP server's name","type":"string"},"uri":{"description":"the resource URI","type":"string"}},"required":["server","uri"],"type":"object"}`),
		ReadOnly:    true,
	}, true
}

// CallResourceRead runs mcp_resource_read: {server, uri}, under the
// view's call limits like any MCP call.
func (v *View) CallResourceRead(ctx context.Context, args json.RawMessage, maxBytes int) Result {
	var a struct {
		Server string `json:"server"`
		URI    string `json:"uri"`
	}
	if err := json.Unmarshal(args, &a); err != nil || a.Server == "" || a.URI == "" {
		return errorResult(`mcp_resource_read takes {"server": NAME, "uri": URI}`)
	}
	release, err := v.acquire()
	if err != nil {
		return errorResult(err.Error())
	}
	defer release()
	rt, err := v.ReadResource(ctx, a.Server, a.URI)
	if err != nil {
		return errorResult(err.Error())
	}
	if maxBytes <= 0 {
		maxBytes = DefaultMaxResultBytes
	}
	out := Result{Text: rt.Text, Images: rt.Images}
	if out.Text == "" {
		out.Text = "(empty resource)"
	}
	if len(out.Text) > maxBytes {
		total := len(out.Text)
		out.Text = cutUTF8(out.Text, maxBytes) + fmt.Sprintf("\n[... resource cut: %d of %d bytes shown]", maxBytes, total)
	}
	out.Summary = fmt.Sprintf("%s:%s, %d bytes", a.Server, a.URI, len(rt.Text))
	return out
}

// ResourceMentions resolves `@server:uri` mentions (a
// mention.ResourceReader) through a conversation's view, which View
// gives (made on first use); a mention waits up to Wait for servers still
// starting, as it may be the session's first line.
type ResourceMentions struct {
	Pool *Pool
	View func() (*View, error)
	Wait time.Duration
}

// Resource reads the resource tok names; ok is false when tok names no
// configured server's resource (a path, a path:line).
func (r ResourceMentions) Resource(ctx context.Context, tok string) (mention.Item, bool) {
	server, uri, ok := r.Pool.SplitMention(tok)
	if !ok {
		return mention.Item{}, false
	}
	r.Pool.WaitStarted(ctx, r.Wait)
	it := mention.Item{Source: "@", Path: tok}
	v, err := r.View()
	if err == nil {
		var rt ResourceText
		if rt, err = v.ReadResource(ctx, server, uri); err == nil {
			it.Text, it.Filetype = rt.Text, rt.Filetype()
			return it, true
		}
	}
	it.Err = err.Error()
	return it, true
}
