package config

import (
	"slices"
	"strings"
	"testing"
)

func TestTasksFromProjectFile(t *testing.T) {
	for _, c := range []struct {
		name    string
		file    string
		trusted bool
		max     int
		copy    []string
		ignored string
	}{
		{"untrusted fewer at once", `{"tasks": {"max_parallel": 2}}`, false, 2, []string{".env"}, ""},
		{"untrusted more at once", `{"tasks": {"max_parallel": 9}}`, false, 3, []string{".env"}, "tasks.max_parallel"},
		{"untrusted copy", `{"tasks": {"copy": ["secrets/*"]}}`, false, 3, []string{".env"}, "tasks.copy"},
		{"trusted copy adds", `{"tasks": {"copy": ["local.json", ".env"]}}`, true, 3, []string{".env", "local.json"}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := Defaults()
			cfg.Tasks = Tasks{MaxParallel: 3, Copy: []string{".env"}}
			if err := mergeWorkspace(&cfg, []byte(c.file), c.trusted); err != nil {
				t.Fatal(err)
			}
			if cfg.Tasks.MaxParallel != c.max || !slices.Equal(cfg.Tasks.Copy, c.copy) {
				t.Errorf("tasks = %+v", cfg.Tasks)
			}
			ign := strings.Join(cfg.Workspace.Ignored, "; ")
			if c.ignored != "" && !strings.Contains(ign, c.ignored) || c.ignored == "" && strings.Contains(ign, "tasks") {
				t.Errorf("ignored: %s", ign)
			}
		})
	}
	bad := Defaults()
	bad.Tasks = Tasks{MaxParallel: -1, Copy: []string{"../x"}}
	if err := bad.validate(false); err == nil || !strings.Contains(err.Error(), "tasks.max_parallel") || !strings.Contains(err.Error(), "tasks.copy[0]") {
		t.Errorf("validate: %v", err)
	}
}
