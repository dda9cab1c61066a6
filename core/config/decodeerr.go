package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"unicode/utf8"

	"github.com/coder-nvim/coder-nvim/core/text"
)

// Errors in a config file say where, in the file's own terms: the line,
// column and text of a syntax error, and the known key an unknown one is
// probably a misspelling of.

// syntaxError places err in data: line and column (1-based, columns in
// characters), the line's text, and a hint for the usual slip, a comma
// before a closing bracket.
func syntaxError(data []byte, err *json.SyntaxError) error {
	off := int(min(max(err.Offset-1, 0), int64(len(data))))
	if off == len(data) && off > 0 {
		off-- // unexpected end: the last character
	}
	start := bytes.LastIndexByte(data[:off], '\n') + 1
	end := bytes.IndexByte(data[off:], '\n')
	if end < 0 {
		end = len(data)
	} else {
		end += off
	}
	line := bytes.Count(data[:off], []byte("\n")) + 1
	col := utf8.RuneCount(data[start:off]) + 1
	text := strings.TrimRight(string(data[start:end]), "\r")
	if len(text) > 120 {
		text = text[:120] + "…"
	}
	hint := ""
	if off < len(data) && (data[off] == '}' || data[off] == ']') {
		if prev := bytes.TrimRight(data[:off], " \t\r\n"); len(prev) > 0 && prev[len(prev)-1] == ',' {
			hint = " (a trailing comma before it? JSON allows none)"
		}
	}
	return fmt.Errorf("invalid JSON at line %d, column %d: %v%s: %q", line, col, err, hint, text)
}

// unknownKey is the error for key, naming the known key it is closest to
// when that is one or two edits away.
func unknownKey(key string) error {
	best, dist := "", 3
	for _, k := range knownKeys() {
		if d := text.EditDistance(strings.ToLower(key), strings.ToLower(k)); d < dist && d < len(k) {
			best, dist = k, d
		}
	}
	if best != "" {
		return fmt.Errorf("unknown key %q (did you mean %q?)", key, best)
	}
	return fmt.Errorf("unknown key %q", key)
}

// knownKeys are the JSON keys of Config at any depth.
func knownKeys() []string {
	seen := map[reflect.Type]bool{}
	var out []string
	var walk func(reflect.Type)
	walk = func(t reflect.Type) {
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Map {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct || seen[t] {
			return
		}
		seen[t] = true
		for i := range t.NumField() {
			f := t.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "-" || !f.IsExported() {
				continue
			}
			if name != "" {
				out = append(out, name)
			}
			walk(f.Type)
		}
	}
	walk(reflect.TypeFor[Config]())
	return out
}
