package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
)

// ToolSearchTool is the tool a conversation with more MCP tools than its
// budget is offered in place of their schemas.
const ToolSearchTool = "mcp_tool_search"

// maxFound is how many tools one search adds.
const maxFound = 5

// SchemaTokens estimates what the tools' entries take in a request
// (chars/4, as the context report counts).
func SchemaTokens(tools []Tool) int {
	n := 0
	for _, t := range tools {
		data, _ := json.Marshal(t.Spec())
		n += len(data)
	}
	return n / 4
}

// Visible is the view's part of the snapshot, in plan mode only the tools
// annotated readOnlyHint.
func (v *View) Visible(cat *Catalog, readOnlyOnly bool) []Tool {
	var out []Tool
	for _, t := range v.Tools(cat) {
		if !readOnlyOnly || t.ReadOnly {
			out = append(out, t)
		}
	}
	return out
}

// Offer is what a request carries of tools: all of them when their
// schemas fit budget (tokens; 0: no budget), else mcp_tool_search, whose
// description names every tool, as head, and the tools searches found,
// in the order they were found, as found. A caller puts found last: a
// new find then only appends, so each request's tools extend the
// previous request's byte for byte. past gives the arguments of the
// conversation's earlier searches (a resumed session's): the view's
// first Offer replays them, so the same tools are found again, in order.
func (v *View) Offer(tools []Tool, budget int, past func() []json.RawMessage) (head, found []Tool) {
	if budget <= 0 || SchemaTokens(tools) <= budget {
		return tools, nil
	}
	v.restore.Do(func() {
		if past != nil {
			for _, args := range past() {
				v.Search(tools, args)
			}
		}
	})
	var names strings.Builder
	for _, t := range tools {
		fmt.Fprintf(&names, "\n%s: %s", t.FQN, oneLine(t.Description, 80))
	}
	search := Tool{
		FQN:  ToolSearchTool,
		Name: ToolSearchTool,
		Description: "Find MCP tools by words of their name or purpose. Found tools are added to your tools " +
			"(with their parameters) from your next step on. The MCP tools you can search:" + names.String(),
		Schema:   json.RawMessage(`{"additionalProperties":false,"properties":{"query":{"description":"words of the tool's name or purpose, or its exact name","type":"string"}},"required":["query"],"type":"object"}`),
		ReadOnly: true,
		Trusted:  true, // the host's own: it reaches no server
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	for _, fqn := range v.found {
		if i := slices.IndexFunc(tools, func(t Tool) bool { return t.FQN == fqn }); i >= 0 {
			found = append(found, tools[i])
		}
	}
	return []Tool{search}, found
}

// Search runs mcp_tool_search over tools (what Visible gives): the
// exact name, else the tools whose name and description hold the most
// of the query's words, at most maxFound; they join the view's found
// tools.
func (v *View) Search(tools []Tool, args json.RawMessage) Result {
	var a struct {
		Query string `json:"query"`
	}
	if err := json.Unmarshal(args, &a); err != nil || strings.TrimSpace(a.Query) == "" {
		return errorResult(`mcp_tool_search takes {"query": WORDS}`)
	}
	q := strings.ToLower(strings.TrimSpace(a.Query))
	type hit struct {
		t     Tool
		score int
	}
	var hits []hit
	for _, t := range tools {
		if strings.ToLower(t.FQN) == q || strings.ToLower(t.Name) == q {
			hits = []hit{{t, 1 << 20}}
			break
		}
		hay := strings.ToLower(t.FQN + " " + t.Description)
		score := 0
		for _, w := range strings.Fields(q) {
			if strings.Contains(hay, w) {
				score++
			}
		}
		if score > 0 {
			hits = append(hits, hit{t, score})
		}
	}
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].score > hits[j].score })
	if len(hits) > maxFound {
		hits = hits[:maxFound]
	}
	if len(hits) == 0 {
		return Result{Text: fmt.Sprintf("no MCP tool matches %q; the names are in mcp_tool_search's description", a.Query), Summary: "no match"}
	}
	var b strings.Builder
	b.WriteString("Added to your tools from your next step on; call them by name:")
	v.mu.Lock()
	for _, h := range hits {
		if !slices.Contains(v.found, h.t.FQN) {
			v.found = append(v.found, h.t.FQN)
		}
		fmt.Fprintf(&b, "\n%s: %s", h.t.FQN, oneLine(h.t.Description, 160))
	}
	v.mu.Unlock()
	return Result{Text: b.String(), Summary: fmt.Sprintf("%d tool(s) found", len(hits))}
}

func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(firstLine(s)), " ")
	return truncate(s, n)
}

// Run runs the offered tool fqn with args: mcp_resource_read,
// mcp_tool_search (over visible, what the search looks through) or a
// server's tool of cat.
func (v *View) Run(ctx context.Context, cat *Catalog, visible []Tool, fqn string, args json.RawMessage) Result {
	switch fqn {
	case ResourceReadTool:
		return v.CallResourceRead(ctx, args, 0)
	case ToolSearchTool:
		return v.Search(visible, args)
	}
	return v.Call(ctx, cat, fqn, args, 0)
}
