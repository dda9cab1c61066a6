package verify

import (
	"strings"
	"testing"
)

func TestWhitelist(t *testing.T) {
	want := []string{"go test ./...", "pytest -q", "npm test -- --watch=false", "pnpm test -- --watch=false",
		"yarn test --watch=false", "cargo test", "mvn -q test", "gradle test", "./gradlew test"}
	if len(Whitelist) != len(want) {
		t.Fatalf("Whitelist has %d entries, seed has %d", len(Whitelist), len(want))
	}
	for i, w := range want {
		if Whitelist[i] != w {
			t.Errorf("Whitelist[%d] = %q, seed says %q", i, Whitelist[i], w)
		}
	}
	for _, tc := range []struct {
		cmd  string
		want bool
	}{
		{"go test ./...", true},
		{"  go   test\t./...  ", true},
		{"go test ./... -v", false},
		{"go test", false},
		{"npm test", false},
		{"make test", false},
		{"cargo test; rm -rf /", false},
		{"", false},
	} {
		if got := IsWhitelisted(tc.cmd); got != tc.want {
			t.Errorf("IsWhitelisted(%q) = %v, want %v", tc.cmd, got, tc.want)
		}
	}
}

func TestWhitelistAssignmentChangesNothing(t *testing.T) {
	saved := Whitelist[5]
	Whitelist[5] = "rm -rf /"
	defer func() { Whitelist[5] = saved }()
	if IsWhitelisted("rm -rf /") || !IsWhitelisted("cargo test") {
		t.Error("assigning to Whitelist changed the decisions")
	}
}

func TestEffectiveMax(t *testing.T) {
	for _, tc := range []struct{ in, want int }{{-3, 0}, {0, 0}, {1, 1}, {2, 2}, {3, 2}, {100, 2}} {
		if got := EffectiveMax(tc.in); got != tc.want {
			t.Errorf("EffectiveMax(%d) = %d, want %d", tc.in, got, tc.want)
		}
	}
}

func TestShouldVerify(t *testing.T) {
	base := TriggerInput{
		EditedPaths:   []string{"main.go"},
		AutoVerify:    true,
		BashAvailable: true,
		MaxAttempts:   2,
		Mode:          ModeAutoEdit,
		UserInput:     "add a flag",
	}
	tests := []struct {
		name   string
		mod    func(*TriggerInput)
		want   bool
		reason string // substring of the reason when want is false
	}{
		{"auto-edit verifies", func(*TriggerInput) {}, true, ""},
		{"yolo verifies", func(in *TriggerInput) { in.Mode = ModeYolo }, true, ""},
		{"plan never", func(in *TriggerInput) { in.Mode = ModePlan; in.UserInput = "run the tests" }, false, "plan"},
		{"default without request", func(in *TriggerInput) { in.Mode = ModeDefault }, false, "default mode"},
		{"default asked in English", func(in *TriggerInput) { in.Mode = ModeDefault; in.UserInput = "fix the parser and run the tests" }, true, ""},
		{"default asked in Chinese", func(in *TriggerInput) { in.Mode = ModeDefault; in.UserInput = "修复这个 bug，然后执行验证" }, true, ""},
		{"default asked 跑测试", func(in *TriggerInput) { in.Mode = ModeDefault; in.UserInput = "改完跑测试" }, true, ""},
		{"default asked 运行测试", func(in *TriggerInput) { in.Mode = ModeDefault; in.UserInput = "请运行测试" }, true, ""},
		{"unknown mode", func(in *TriggerInput) { in.Mode = "turbo" }, false, "unknown mode"},
		{"no edit", func(in *TriggerInput) { in.EditedPaths = nil }, false, NoEditReason},
		{"docs only", func(in *TriggerInput) { in.EditedPaths = []string{"README.md", "docs/guide/intro.md", "CHANGELOG"} }, false, "documentation"},
		{"docs and code", func(in *TriggerInput) { in.EditedPaths = []string{"README.md", "core/x.go"} }, true, ""},
		{"setting off", func(in *TriggerInput) { in.AutoVerify = false }, false, "auto_verify_after_edit"},
		{"bash unavailable", func(in *TriggerInput) { in.BashAvailable = false }, false, "bash"},
		{"first attempt", func(in *TriggerInput) { in.Attempts = 0 }, true, ""},
		{"second attempt", func(in *TriggerInput) { in.Attempts = 1 }, true, ""},
		{"bound reached", func(in *TriggerInput) { in.Attempts = 2 }, false, "2 of 2"},
		{"max above default clamps", func(in *TriggerInput) { in.MaxAttempts = 5; in.Attempts = 2 }, false, "2 of 2"},
		{"max tightened to 1", func(in *TriggerInput) { in.MaxAttempts = 1; in.Attempts = 1 }, false, "1 of 1"},
		{"max tightened to 1 first", func(in *TriggerInput) { in.MaxAttempts = 1 }, true, ""},
		{"max 0 is off", func(in *TriggerInput) { in.MaxAttempts = 0 }, false, "max_verify_attempts is 0"},
		{"user declines", func(in *TriggerInput) { in.UserInput = "rename the flag, don't run the tests" }, false, "not to run"},
		{"user declines in Chinese", func(in *TriggerInput) { in.Mode = ModeYolo; in.UserInput = "改一下变量名，不用跑测试" }, false, "not to run"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := base
			tc.mod(&in)
			got, reason := ShouldVerify(in)
			if got != tc.want {
				t.Fatalf("ShouldVerify = %v (%q), want %v", got, reason, tc.want)
			}
			if got && reason != "" {
				t.Errorf("yes with reason %q", reason)
			}
			if !got && !strings.Contains(reason, tc.reason) {
				t.Errorf("reason %q does not mention %q", reason, tc.reason)
			}
		})
	}
}

func TestSkipNotice(t *testing.T) {
	if got := SkipNotice("plan mode never verifies"); got != "auto-verify did not run: plan mode never verifies" {
		t.Errorf("SkipNotice = %q", got)
	}
	if got := SkipNotice(""); got != "auto-verify did not run" {
		t.Errorf("SkipNotice(\"\") = %q", got)
	}
}
