package shellcheck

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// outsideOf returns what the analysis says read-only commands read outside
// the workspace.
func outsideOf(a Analysis) []string {
	var out []string
	for _, c := range a.Commands {
		out = append(out, c.Outside...)
	}
	return out
}

func TestReadsOutsideWorkspace(t *testing.T) {
	tests := []struct {
		cmd     string
		outside bool
	}{
		{"cat ~/.ssh/id_rsa", true},
		{"cat /etc/shadow", true},
		{"head ../x", true},
		{"tail -n 5 ../x", true},
		{"cat /home/u/other/x", true},
		{"cat /home/u/proj/../x", true},
		{"cat $HOME/x", true},
		{`cat "$(echo /etc/shadow)"`, true},
		{"cat < /etc/shadow", true},
		{"read -r x < ~/.netrc", true},
		{"{ cat; } < /etc/shadow", true},
		{"grep -r key ~", true},
		{"grep -f/etc/shadow .", true},
		{"grep --file=/etc/shadow x", true},
		{"grep -e x /etc/shadow", true},
		{"rg secret /", true},
		{"ls /", true},
		{"ls ~", true},
		{"cd / && cat etc/shadow", true},
		{"cd .. && ls", true},
		{"(cd /tmp; ls)", true},
		{"cd $D && cat x", true},
		{"echo ~/.ssh/id_rsa | xargs cat", true},
		{"cat {..,x}/secret", true},
		{"cat .*/secret", true},
		{"sh -c 'cat /etc/shadow'", true},
		{"eval 'cd /'; cat etc/shadow", true},
		{"find / -name id_rsa", true},
		{`find . -exec cat /etc/shadow \;`, true},
		{"git diff --no-index /etc/shadow /dev/null", true},
		{"base64 /etc/shadow", true},
		{"sed -n p /etc/shadow", true},
		{"awk 1 /etc/shadow", true},
		{"jq . ~/.config/x.json", true},
		{"diff /etc/shadow x", true},
		{"stat ~/.ssh", true},
		{"du -sh ~", true},
		{"cat /proc/self/environ", true},
		{`echo "$(< /etc/shadow)"`, true},
		{"while read -r l; do echo $l; done < /etc/shadow", true},
		{"cat 3</etc/shadow /dev/fd/3", true},

		{"cat README.md", false},
		{"cat ./src/../README.md", false},
		{"cat /home/u/proj/main.go", false},
		{"grep -rn TODO .", false},
		{"grep /usr/ main.go", false},
		{"grep -e /usr/ main.go", false},
		{"sed -n '/x/p' f", false},
		{"awk '/x/' f", false},
		{"cut -d / -f 2 f", false},
		{"cut -d/ -f2 f", false},
		{"sort -t / -k 2 f", false},
		{"diff a /dev/null", false},
		{"cat -", false},
		{"echo /etc/shadow", false},
		{"printf '%s' /etc", false},
		{"dirname /etc/x", false},
		{"test -f /etc/shadow", false},
		{"which go", false},
		{"cd sub && cat x", false},
		{"cd sub && cat ../x", false},
		{"(cd /tmp); cat x", false},
		{"find . -name '*.go' -exec grep -l x {} +", false},
		{"diff <(sort a) b", false},
		{"ls -la", false},
		{"git log -p", false},
		{"git show HEAD~1:main.go", false},
		{"jq .a f.json", false},
	}
	for _, tc := range tests {
		a := Analyze(tc.cmd, ws)
		got := outsideOf(a)
		if (len(got) > 0) != tc.outside {
			t.Errorf("Analyze(%q): outside reads %q, want outside=%v (class %v)", tc.cmd, got, tc.outside, a.Class)
		}
		if a.Class != ReadOnly {
			t.Errorf("Analyze(%q) = %v (%q): reads alone must not change the class", tc.cmd, a.Class, a.Reasons)
		}
	}
}

func TestFileOptionsClasses(t *testing.T) {
	tests := []struct {
		cmd  string
		want Class
	}{
		{"base64 in.txt", ReadOnly},
		{"base64 -d in.txt", ReadOnly},
		{"base64 -i in.txt", ReadOnly},
		{"base64 -w0 in.txt", ReadOnly},
		{"base64 -o out.txt in.txt", Unknown},
		{"base64 -oout.txt in.txt", Unknown},
		{"base64 -Do out.txt in.txt", Unknown},
		{"base64 --output out.txt in.txt", Unknown},
		{"base64 --outp=out.txt in.txt", Unknown},
		{"base64 -o", Unknown},
		{"base64 --output=/etc/x in.txt", Dangerous},
		{"base64 -d -o ~/.bashrc in.txt", Dangerous},
		{"base32 -o out.txt in.txt", Unknown},
		{"sed '1r /etc/shadow' f", Unknown},
		{"sed -e 'R ~/.netrc' f", Unknown},
		{"base64 $OPTS in.txt", Unknown},
	}
	for _, tc := range tests {
		if a := Analyze(tc.cmd, ws); a.Class != tc.want {
			t.Errorf("Analyze(%q) = %v, want %v (%q)", tc.cmd, a.Class, tc.want, a.Reasons)
		}
	}
}

// TestGitSelectsRepository: git that may use another repository than the
// workspace's is never read-only, whatever the subcommand.
func TestGitSelectsRepository(t *testing.T) {
	tests := []struct {
		cmd  string
		want Class
	}{
		{"git status", ReadOnly},
		{"git -C . status", ReadOnly},
		{"git -C sub status", ReadOnly}, // nothing on disk: the workspace's repository
		{"cd sub && git log", ReadOnly},
		{"cd sub && cd .. && git status", ReadOnly},
		{"(cd /tmp); git status", ReadOnly},
		{"git --git-dir=sub status", Unknown},
		{"git --git-dir sub status", Unknown},
		{"git --work-tree=.. status", Unknown},
		{"git --work-tree .. --git-dir x log", Unknown},
		{"git --namespace=x log", Unknown},
		{"git --bare log", Unknown},
		{"git -C /tmp/x status", Unknown},
		{"git -C ~ status", Unknown},
		{"git -C .. status", Unknown},
		{"git -C $D status", Unknown},
		{"cd .. && git status", Unknown},
		{"cd /etc && git log", Unknown},
		{"cd $D && git status", Unknown},
		{"cd ~ && git status", Unknown},
		{"pushd +1; git status", Unknown},
		{"eval cd /tmp; git status", Unknown},
		{"env -C sub git status", Unknown},
		{"env --chdir=sub git status", Unknown},
		{"GIT_DIR=sub git status", Unknown},
		{"export GIT_WORK_TREE=..; git status", Unknown},
		{"env GIT_CONFIG_GLOBAL=x git log", Unknown},
		{"git -c core.fsmonitor=x status", Unknown},
		{"git --config-env=core.pager=X log", Unknown},
		{"git --exec-path=. status", Unknown},
		{"f() { cd sub; }; f; git status", Unknown},
		{"git ls-remote sub", Unknown},
		{"echo sub | xargs -I X git -C X status", Unknown},
		{`find . -name HEAD -execdir git status \;`, Unknown},
		{`find . -type d -exec git -C {} status \;`, Unknown},
		{"sh -c 'cd .. && git status'", Unknown},
		{"bash -c 'git -C /tmp log'", Unknown},
		{"git remote show x", Unknown},
		{"git remote show -n origin", ReadOnly},
	}
	for _, tc := range tests {
		if a := Analyze(tc.cmd, ws); a.Class != tc.want {
			t.Errorf("Analyze(%q) = %v, want %v (%q)", tc.cmd, a.Class, tc.want, a.Reasons)
		}
	}
	// Without a workspace root only git in the starting directory counts.
	for cmd, want := range map[string]Class{"git status": ReadOnly, "cd sub && git status": Unknown, "git -C sub log": Unknown} {
		if a := Analyze(cmd, ""); a.Class != want {
			t.Errorf("Analyze(%q, no root) = %v, want %v", cmd, a.Class, want)
		}
	}
}

// TestGitForeignRepositoryOnDisk: directories that hold what git takes
// for a repository (a bare one the model wrote, a .git dir or file) are
// not the workspace's repository, nor is a symlink out of it.
func TestGitForeignRepositoryOnDisk(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	mk := func(p, content string) {
		t.Helper()
		full := filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(root, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	mk("bare/HEAD", "ref: refs/heads/main\n")
	mk("bare/config", "[core]\n\tfsmonitor = x\n")
	mk("bare/deep/file", "x")
	mk("nested/.git", "gitdir: ../bare\n")
	mk("clean/a/file", "x")
	mk("secret-target", "")
	if err := os.Symlink(outside, filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, "bare"), filepath.Join(root, "clean", "tobare")); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		cmd  string
		want Class
	}{
		{"git status", ReadOnly},
		{"cd clean && git status", ReadOnly},
		{"git -C clean/a log", ReadOnly},
		{"cd bare && git status", Unknown},
		{"cd bare/deep && git status", Unknown},
		{"git -C bare status", Unknown},
		{"git -C clean -C ../bare status", Unknown},
		{"cd nested && git status", Unknown},
		{"git -C link status", Unknown},
		{"cd clean/tobare && git log", Unknown},
		{"cd " + filepath.Join(root, "bare") + " && git status", Unknown},
		{"cd " + filepath.Join(root, "clean") + " && git status", ReadOnly},
	}
	for _, tc := range tests {
		if a := Analyze(tc.cmd, root); a.Class != tc.want {
			t.Errorf("Analyze(%q) = %v, want %v (%q)", tc.cmd, a.Class, tc.want, a.Reasons)
		}
	}
	if got := outsideOf(Analyze("cat link/x", root)); len(got) == 0 {
		t.Errorf("cat link/x through a symlink out of the workspace: no outside read reported")
	}
	if got := outsideOf(Analyze("cat clean/a/file secret-target", root)); len(got) != 0 {
		t.Errorf("reads inside the workspace reported as outside: %q", got)
	}

	// A workspace that is no repository, where the model wrote HEAD,
	// objects and refs: git status would take the root for a bare one.
	bareRoot := t.TempDir()
	for _, p := range []string{"HEAD", "config", "objects/x", "refs/x"} {
		full := filepath.Join(bareRoot, p)
		os.MkdirAll(filepath.Dir(full), 0o755)
		if err := os.WriteFile(full, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if a := Analyze("git status", bareRoot); a.Class != Unknown || !strings.Contains(strings.Join(a.Reasons, " "), "bare") {
		t.Errorf("git status in a root holding HEAD without .git = %v (%q), want unknown", a.Class, a.Reasons)
	}
}

func TestReadOnlyEnv(t *testing.T) {
	env := ReadOnlyEnv()
	vars := map[string]string{}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		vars[k] = v
	}
	keys := map[string]string{}
	for i := 0; ; i++ {
		k, ok := vars["GIT_CONFIG_KEY_"+strconv.Itoa(i)]
		if !ok {
			if vars["GIT_CONFIG_COUNT"] != strconv.Itoa(i) {
				t.Fatalf("GIT_CONFIG_COUNT = %s, %d keys", vars["GIT_CONFIG_COUNT"], i)
			}
			break
		}
		keys[k] = vars["GIT_CONFIG_VALUE_"+strconv.Itoa(i)]
	}
	for k, want := range map[string]string{"safe.bareRepository": "explicit", "core.fsmonitor": "false", "core.hooksPath": "/dev/null", "diff.external": "", "protocol.allow": "never"} {
		if got, ok := keys[k]; !ok || got != want {
			t.Errorf("%s = %q (set %v), want %q", k, got, ok, want)
		}
	}
}
