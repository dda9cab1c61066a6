package verify

import (
	"strings"
	"testing"
)

func BenchmarkShouldVerify(b *testing.B) {
	in := TriggerInput{
		EditedPaths: []string{"README.md", "core/agent/loop.go"}, AutoVerify: true, BashAvailable: true,
		MaxAttempts: 2, Mode: ModeDefault,
		UserInput: "Refactor the session saver so it writes atomically, keep the API, and then run `go test ./...` to verify. 改完跑一下测试。",
	}
	for b.Loop() {
		ShouldVerify(in)
	}
}

func BenchmarkChoose(b *testing.B) {
	root := b.TempDir()
	for b.Loop() {
		Choose(root, "fix the lexer and run the tests", []string{"make test"})
	}
}

func BenchmarkFixPrompt(b *testing.B) {
	out := strings.Repeat("--- FAIL: TestX (0.00s)\n    x_test.go:9: got 1, want 2\n", 20000)
	b.SetBytes(int64(len(out)))
	for b.Loop() {
		FixPrompt("go test ./...", out, 1, 2)
	}
}
