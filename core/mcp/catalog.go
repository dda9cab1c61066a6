package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/coder-nvim/coder-nvim/core/llm"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Tool is one MCP tool as offered to the model.
type Tool struct {
	FQN         string // server__tool, the name the model calls
	Server      string
	Name        string // the server's own name for it
	Description string
	Schema      json.RawMessage // input schema, compact JSON
	ReadOnly    bool            // annotated readOnlyHint: true
	// NonDestructive: annotated destructiveHint: false (the protocol's
	// default is destructive).
	NonDestructive bool
	Trusted        bool // its server is marked trusted
}

// Spec is the tool's entry in a request's tools array.
func (t Tool) Spec() llm.Tool {
	desc := t.Description
	if desc == "" {
		desc = fmt.Sprintf("%s (MCP server %s)", t.Name, t.Server)
	}
	return llm.Tool{Type: "function", Function: llm.FunctionDef{Name: t.FQN, Description: desc, Parameters: t.Schema}}
}

// Conflict is a name offered with different definitions: none is offered.
type Conflict struct {
	FQN     string
	Servers []string // the servers (server/tool) that define it
}

func (c Conflict) String() string {
	return fmt.Sprintf("%s is defined differently by %s; not offered", c.FQN, strings.Join(c.Servers, " and "))
}

// Catalog is an immutable snapshot of the pool's tools, sorted by FQN.
// The agent keeps one for a whole turn, so requests within a turn send
// identical tool lists.
type Catalog struct {
	Tools     []Tool
	Conflicts []Conflict
	byName    map[string]int
}

// Lookup finds a tool by FQN.
func (c *Catalog) Lookup(fqn string) (Tool, bool) {
	if c == nil {
		return Tool{}, false
	}
	i, ok := c.byName[fqn]
	if !ok {
		return Tool{}, false
	}
	return c.Tools[i], true
}

// Names lists the FQNs in order.
func (c *Catalog) Names() []string {
	if c == nil {
		return nil
	}
	out := make([]string, len(c.Tools))
	for i, t := range c.Tools {
		out[i] = t.FQN
	}
	return out
}

func (c *Catalog) equal(o *Catalog) bool {
	if len(c.Tools) != len(o.Tools) || len(c.Conflicts) != len(o.Conflicts) {
		return false
	}
	for i := range c.Tools {
		a, b := c.Tools[i], o.Tools[i]
		if a.FQN != b.FQN || a.Server != b.Server || a.Name != b.Name || a.Description != b.Description ||
			!bytes.Equal(a.Schema, b.Schema) || a.ReadOnly != b.ReadOnly || a.NonDestructive != b.NonDestructive || a.Trusted != b.Trusted {
			return false
		}
	}
	for i := range c.Conflicts {
		if c.Conflicts[i].String() != o.Conflicts[i].String() {
			return false
		}
	}
	return true
}

// buildCatalog merges the servers' tool lists: sorted by FQN, identical
// duplicates collapsed (the first server by name wins), same name with a
// different definition reported and left out.
func buildCatalog(lists map[string][]*sdk.Tool, trusted map[string]bool) *Catalog {
	groups := map[string][]Tool{}
	for _, srv := range sortedNames(lists) {
		for _, st := range lists[srv] {
			if st == nil {
				continue
			}
			t := Tool{
				FQN:            FQN(srv, st.Name),
				Server:         srv,
				Name:           st.Name,
				Description:    st.Description,
				Schema:         schemaJSON(st.InputSchema),
				ReadOnly:       st.Annotations != nil && st.Annotations.ReadOnlyHint,
				NonDestructive: st.Annotations != nil && st.Annotations.DestructiveHint != nil && !*st.Annotations.DestructiveHint,
				Trusted:        trusted[srv],
			}
			groups[t.FQN] = append(groups[t.FQN], t)
		}
	}
	cat := &Catalog{byName: map[string]int{}}
	for _, fqn := range sortedNames(groups) {
		g := groups[fqn]
		same := true
		for _, t := range g[1:] {
			if !bytes.Equal(t.Schema, g[0].Schema) || t.Description != g[0].Description || t.ReadOnly != g[0].ReadOnly {
				same = false
			}
		}
		if !same {
			var who []string
			for _, t := range g {
				who = append(who, t.Server+"/"+t.Name)
			}
			cat.Conflicts = append(cat.Conflicts, Conflict{FQN: fqn, Servers: who})
			continue
		}
		cat.byName[fqn] = len(cat.Tools)
		cat.Tools = append(cat.Tools, g[0])
	}
	return cat
}

// schemaJSON is the input schema as compact JSON with sorted keys (maps
// marshal sorted), so equal schemas compare equal and requests are stable.
func schemaJSON(s any) json.RawMessage {
	if s == nil {
		return json.RawMessage(`{"type":"object"}`)
	}
	data, err := json.Marshal(s)
	if err != nil || !json.Valid(data) {
		return json.RawMessage(`{"type":"object"}`)
	}
	var v any
	if json.Unmarshal(data, &v) == nil {
		if again, err := json.Marshal(v); err == nil {
			data = again
		}
	}
	return data
}
