package hooks

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Decode decodes a "hooks" object strictly, hook by hook, so that an error
// names the hook's key (encoding/json leaves map keys and indexes out).
func Decode(raw json.RawMessage) (Config, error) {
	if string(bytes.TrimSpace(raw)) == "null" {
		return nil, nil
	}
	var events map[string]json.RawMessage
	if err := json.Unmarshal(raw, &events); err != nil {
		return nil, fmt.Errorf(`key "hooks": expected an object of hook lists by event (%s)`, strings.Join(eventNames(), ", "))
	}
	out := Config{}
	for name, list := range events {
		var entries []json.RawMessage
		if err := json.Unmarshal(list, &entries); err != nil {
			return nil, fmt.Errorf("key \"hooks.%s\": expected an array of hooks", name)
		}
		hs := []Hook{}
		for i, entry := range entries {
			var h Hook
			dec := json.NewDecoder(bytes.NewReader(entry))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&h); err != nil {
				key := fmt.Sprintf("hooks.%s[%d]", name, i)
				var typeErr *json.UnmarshalTypeError
				switch {
				case strings.HasPrefix(err.Error(), "json: unknown field "):
					field := strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`)
					return nil, fmt.Errorf("unknown key \"%s.%s\" (known: matcher, command, timeout)", key, field)
				case errors.As(err, &typeErr) && typeErr.Field != "":
					return nil, fmt.Errorf("key \"%s.%s\": expected a string, got JSON %s", key, typeErr.Field, typeErr.Value)
				}
				return nil, fmt.Errorf("key %q: expected an object with a command", key)
			}
			hs = append(hs, h)
		}
		out[Event(name)] = hs
	}
	return out, nil
}
