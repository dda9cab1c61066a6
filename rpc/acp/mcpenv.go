package acp

// Clients shape an MCP server's env and headers in two ways: ACP's list
// of {name, value} pairs, or an object of strings (codecompanion.nvim's
// transform_to_acp). The SDK decodes only the list and answers anything
// else with -32602 "invalid variant payload", naming no field; so the
// input filter turns an object into the list, and refuses other shapes
// with the field's name.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"

	sdk "github.com/coder/acp-go-sdk"
)

// codeInvalidParams is JSON-RPC's invalid params.
const codeInvalidParams = -32602

// sessionOpeners are the requests that carry mcpServers.
var sessionOpeners = map[string]bool{sdk.AgentMethodSessionNew: true, sdk.AgentMethodSessionLoad: true, sdk.AgentMethodSessionResume: true}

// normalizeMCP rewrites the env and headers objects of a session opener's
// mcpServers as lists. It returns the message to pass on, or the reason to
// refuse it (naming the field) and the request's id.
func normalizeMCP(msg []byte) ([]byte, json.RawMessage, string) {
	if !bytes.Contains(msg, []byte(`"mcpServers"`)) {
		return msg, nil, ""
	}
	var fields map[string]json.RawMessage
	var method string
	if json.Unmarshal(msg, &fields) != nil || json.Unmarshal(fields["method"], &method) != nil || !sessionOpeners[method] {
		return msg, nil, ""
	}
	var params map[string]json.RawMessage
	if json.Unmarshal(fields["params"], &params) != nil {
		return msg, nil, ""
	}
	var servers []map[string]json.RawMessage
	if json.Unmarshal(params["mcpServers"], &servers) != nil {
		return msg, nil, "" // the SDK says what is wrong with the list itself
	}
	changed := false
	for i, srv := range servers {
		for _, key := range []string{"env", "headers"} {
			raw, ok := srv[key]
			if !ok {
				continue
			}
			list, conv, why := pairs(raw)
			if why != "" {
				return nil, fields["id"], fmt.Sprintf("mcpServers[%d].%s %s: want a list of {\"name\": \"…\", \"value\": \"…\"} (or an object of strings)", i, key, why)
			}
			if conv {
				srv[key], changed = list, true
			}
		}
	}
	if !changed {
		return msg, nil, ""
	}
	params["mcpServers"], _ = json.Marshal(servers)
	fields["params"], _ = json.Marshal(params)
	out, err := json.Marshal(fields)
	if err != nil {
		return msg, nil, ""
	}
	return out, nil, ""
}

// pairs reads an env or headers value: a list passes as it is (conv
// false); an object of strings becomes the list, sorted by name.
func pairs(raw json.RawMessage) (list json.RawMessage, conv bool, why string) {
	switch firstByte(raw) {
	case '[':
		return raw, false, ""
	case 'n':
		return json.RawMessage("[]"), true, ""
	case '{':
	default:
		return nil, false, "is neither a list nor an object"
	}
	var obj map[string]any
	if err := json.Unmarshal(raw, &obj); err != nil {
		return nil, false, "is not a valid object"
	}
	names := make([]string, 0, len(obj))
	for k := range obj {
		names = append(names, k)
	}
	sort.Strings(names)
	var out []sdk.EnvVariable
	for _, k := range names {
		v, ok := obj[k].(string)
		if !ok {
			return nil, false, fmt.Sprintf("has a value for %q that is not a string", k)
		}
		out = append(out, sdk.EnvVariable{Name: k, Value: v})
	}
	b, _ := json.Marshal(out)
	if out == nil {
		b = []byte("[]")
	}
	return b, true, ""
}
