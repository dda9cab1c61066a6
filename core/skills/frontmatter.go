package skills

import (
	"errors"
	"fmt"
	"strings"
)

// parse splits SKILL.md into its front matter (a flat map) and its body.
func parse(data []byte) (map[string]string, string, error) {
	text := strings.TrimPrefix(string(data), "\ufeff")
	text = strings.ReplaceAll(text, "\r\n", "\n")
	if !strings.HasPrefix(text, "---\n") {
		return nil, "", errors.New("missing front matter: the file must start with a '---' line")
	}
	lines := strings.Split(text[len("---\n"):], "\n")
	end := -1
	for i, l := range lines {
		if strings.TrimRight(l, " \t") == "---" {
			end = i
			break
		}
	}
	if end < 0 {
		return nil, "", errors.New("front matter is not closed by a '---' line")
	}
	meta := map[string]string{}
	for i := 0; i < end; i++ {
		l := lines[i]
		if strings.TrimSpace(l) == "" || strings.HasPrefix(strings.TrimSpace(l), "#") {
			continue
		}
		if l[0] == ' ' || l[0] == '\t' {
			continue // nested values of keys we do not use
		}
		key, val, ok := strings.Cut(l, ":")
		if !ok {
			return nil, "", fmt.Errorf("front matter line %d: want 'key: value', got %q", i+2, l)
		}
		key = strings.TrimSpace(key)
		val = strings.TrimSpace(val)
		if val == ">" || val == "|" || val == ">-" || val == "|-" {
			var parts []string
			for i+1 < end && (lines[i+1] == "" || lines[i+1][0] == ' ' || lines[i+1][0] == '\t') {
				i++
				if p := strings.TrimSpace(lines[i]); p != "" {
					parts = append(parts, p)
				}
			}
			sep := " "
			if val[0] == '|' {
				sep = "\n"
			}
			val = strings.Join(parts, sep)
		} else {
			val = unquote(val)
		}
		meta[key] = val
	}
	return meta, strings.Join(lines[end+1:], "\n"), nil
}

func unquote(v string) string {
	if len(v) >= 2 && (v[0] == '"' && v[len(v)-1] == '"' || v[0] == '\'' && v[len(v)-1] == '\'') {
		inner := v[1 : len(v)-1]
		if v[0] == '\'' {
			return strings.ReplaceAll(inner, "''", "'")
		}
		return strings.NewReplacer(`\"`, `"`, `\\`, `\`, `\n`, "\n").Replace(inner)
	}
	return v
}
