package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/coder-nvim/coder-nvim/core/hooks"
	"github.com/coder-nvim/coder-nvim/core/mcp"
)

// DecodeMCPServers decodes an "mcpServers" object given by a front end
// (Neovim setup, as JSON), strictly, and checks it; errors name the key.
func DecodeMCPServers(data []byte) (map[string]mcp.ServerConfig, error) {
	servers, err := decodeServers(data)
	if err != nil {
		return nil, err
	}
	if err := mcp.ValidateServers(servers); err != nil {
		return nil, err
	}
	return servers, nil
}

func decodeServers(raw json.RawMessage) (map[string]mcp.ServerConfig, error) {
	if string(bytes.TrimSpace(raw)) == "null" {
		return nil, nil
	}
	var entries map[string]json.RawMessage
	if err := json.Unmarshal(raw, &entries); err != nil {
		return nil, errors.New(`key "mcpServers": expected an object of servers by name`)
	}
	out := map[string]mcp.ServerConfig{}
	for name, entry := range entries {
		var sc mcp.ServerConfig
		dec := json.NewDecoder(bytes.NewReader(entry))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&sc); err != nil {
			var typeErr *json.UnmarshalTypeError
			switch {
			case errors.As(err, &typeErr) && typeErr.Field != "":
				return nil, fmt.Errorf("key \"mcpServers.%s.%s\": expected %s, got JSON %s", name, typeErr.Field, jsonType(typeErr.Type), typeErr.Value)
			case strings.HasPrefix(err.Error(), "json: unknown field "):
				field := strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`)
				return nil, fmt.Errorf("unknown key \"mcpServers.%s.%s\" (known: command, args, env, cwd, url, headers, type, disabled, trusted)", name, field)
			}
			return nil, fmt.Errorf("key \"mcpServers.%s\": expected an object with command or url", name)
		}
		out[name] = sc
	}
	return out, nil
}

// AddMCPServers adds servers a front end names (Neovim setup, ACP
// session/new) to the configured ones; a server of the same name is
// replaced.
func (c *Config) AddMCPServers(servers map[string]mcp.ServerConfig) {
	if len(servers) == 0 {
		return
	}
	merged := make(map[string]mcp.ServerConfig, len(c.MCPServers)+len(servers))
	for k, v := range c.MCPServers {
		merged[k] = v
	}
	for k, v := range servers {
		merged[k] = v
	}
	c.MCPServers = merged
}

// Decode merges one JSON document into cfg: keys present replace, keys
// absent keep their value. Unknown keys and wrong types are errors that
// name the key.
func Decode(data []byte, cfg *Config) error {
	// mcpServers and hooks are decoded apart, entry by entry, so an
	// error names the entry (encoding/json leaves map keys out of field
	// paths).
	var top map[string]json.RawMessage
	if json.Unmarshal(data, &top) == nil {
		if raw, ok := top["mcpServers"]; ok {
			servers, err := decodeServers(raw)
			if err != nil {
				return err
			}
			delete(top, "mcpServers")
			data, _ = json.Marshal(top)
			cfg.AddMCPServers(servers)
		}
		if raw, ok := top["hooks"]; ok {
			hs, err := hooks.Decode(raw)
			if err != nil {
				return err
			}
			delete(top, "hooks")
			data, _ = json.Marshal(top)
			cfg.Hooks = hs
		}
	}
	// encoding/json fills a slice in place when it has room: cfg may be a
	// copy sharing its slices with the config a file merges into (the
	// user's), which would then be changed by the file.
	detachSlices(reflect.ValueOf(cfg).Elem())
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(cfg); err != nil {
		var typeErr *json.UnmarshalTypeError
		var syntaxErr *json.SyntaxError
		switch {
		case errors.As(err, &typeErr) && typeErr.Field == "":
			return fmt.Errorf("expected a JSON object, got JSON %s", typeErr.Value)
		case errors.As(err, &typeErr):
			return fmt.Errorf("key %q: expected %s, got JSON %s", typeErr.Field, jsonType(typeErr.Type), typeErr.Value)
		case errors.As(err, &syntaxErr):
			return syntaxError(data, syntaxErr)
		case strings.HasPrefix(err.Error(), "json: unknown field "):
			return unknownKey(strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`))
		}
		return fmt.Errorf("invalid JSON: %w", err)
	}
	if dec.More() {
		return errors.New("invalid JSON: extra data after the top-level object")
	}
	return nil
}

// jsonType names the JSON type a Go type decodes from, for error messages
// that speak the file's language rather than Go's.
func jsonType(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Bool:
		return "a boolean (true or false)"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.String:
		return "a string"
	case reflect.Slice, reflect.Array:
		elem := map[reflect.Kind]string{reflect.String: " of strings", reflect.Struct: " of objects", reflect.Int: " of integers"}[t.Elem().Kind()]
		return "an array" + elem
	case reflect.Struct, reflect.Map:
		return "an object"
	}
	return t.Kind().String()
}

// detachSlices gives every slice reachable through v's struct fields a
// backing array of its own.
func detachSlices(v reflect.Value) {
	switch v.Kind() {
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if f := v.Field(i); f.CanSet() {
				detachSlices(f)
			}
		}
	case reflect.Slice:
		if v.IsNil() {
			return
		}
		c := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
		reflect.Copy(c, v)
		v.Set(c)
		for i := 0; i < c.Len(); i++ {
			detachSlices(c.Index(i))
		}
	}
}
