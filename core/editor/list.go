package editor

import (
	"bytes"
	"encoding/json"
)

// List is a slice that also decodes from an empty JSON object: editors
// whose JSON encoder cannot tell an empty Lua table's kind send {} for an
// empty list.
type List[T any] []T

// UnmarshalJSON accepts an array, null or {}.
func (l *List[T]) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	if bytes.Equal(data, []byte("{}")) || bytes.Equal(data, []byte("null")) {
		*l = nil
		return nil
	}
	var s []T
	if err := json.Unmarshal(data, &s); err != nil {
		return err
	}
	*l = s
	return nil
}
