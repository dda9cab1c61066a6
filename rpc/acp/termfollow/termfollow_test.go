package termfollow

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestFollow: the follower prints what the writer wrote, as it comes, and
// exits with the command's status; it refuses what is not an output file
// and gives up on a file that stopped changing.
func TestFollow(t *testing.T) {
	fast := follower{poll: 5 * time.Millisecond, stale: 10 * time.Second, now: time.Now}
	tests := []struct {
		name string
		fl   follower
		// write fills the file while the follower runs; "" is a file
		// left as Create wrote it.
		write    func(t *testing.T, w *Writer)
		raw      string // instead of a writer's file
		wantOut  string
		wantCode int
		wantErr  string
	}{{
		name: "output then exit status",
		fl:   fast,
		write: func(t *testing.T, w *Writer) {
			w.Output("hello ")
			time.Sleep(20 * time.Millisecond) // the follower waits at the end of the file
			w.Output("world\n")
			w.End(3)
		},
		wantOut: "hello world\n", wantCode: 3,
	}, {
		name:    "a signal's negative status",
		fl:      fast,
		write:   func(t *testing.T, w *Writer) { w.End(-1) },
		wantOut: "", wantCode: 1,
	}, {
		name:    "output past one record",
		fl:      fast,
		write:   func(t *testing.T, w *Writer) { w.Output(strings.Repeat("x", MaxRecord+10)); w.End(0) },
		wantOut: strings.Repeat("x", MaxRecord+10), wantCode: 0,
	}, {
		name:     "not an output file",
		fl:       fast,
		raw:      "root:x:0:0:root:/root:/bin/bash\n",
		wantCode: 1, wantErr: "not a coder-nvim terminal output file",
	}, {
		name:     "a bad record",
		fl:       fast,
		raw:      header + "o 99999999999\n",
		wantCode: 1, wantErr: "not a coder-nvim terminal output file",
	}, {
		name:     "the host stopped touching it",
		fl:       follower{poll: 5 * time.Millisecond, stale: 50 * time.Millisecond, now: time.Now},
		raw:      header + "o 3\nabc",
		wantOut:  "abc",
		wantCode: 1, wantErr: "stopped updating",
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			var path string
			done := make(chan struct{})
			if tc.raw != "" {
				path = filepath.Join(dir, "output-raw")
				if err := os.WriteFile(path, []byte(tc.raw), 0o600); err != nil {
					t.Fatal(err)
				}
				close(done)
			} else {
				w, err := Create(dir)
				if err != nil {
					t.Fatal(err)
				}
				defer w.Remove()
				path = w.Path()
				go func() { defer close(done); tc.write(t, w) }()
			}
			f, err := openRegular(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			var out bytes.Buffer
			code, err := tc.fl.follow(f, &out)
			<-done
			if out.String() != tc.wantOut || code != tc.wantCode {
				t.Errorf("printed %d bytes %.40q, exit %d; want %.40q, exit %d", out.Len(), out.String(), code, tc.wantOut, tc.wantCode)
			}
			if tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
				t.Errorf("error %v, want %q", err, tc.wantErr)
			}
		})
	}
}

// TestFollowRefusesLinks: the follower opens only a regular file, never a
// link to one.
func TestFollowRefusesLinks(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "secret")
	os.WriteFile(target, []byte(header+"o 6\nsecret"), 0o600)
	link := filepath.Join(dir, "output-link")
	if err := os.Symlink(target, link); err != nil {
		t.Skip("no symlinks here:", err)
	}
	var out, errs bytes.Buffer
	if code := Main([]string{link}, &out, &errs); code != 1 || out.Len() > 0 || !strings.Contains(errs.String(), "not a regular file") {
		t.Errorf("Main(link) = %d, printed %q, said %q", code, out.String(), errs.String())
	}
	if code := Main([]string{dir}, &out, &errs); code != 1 || out.Len() > 0 {
		t.Errorf("Main(dir) = %d, printed %q", code, out.String())
	}
}

// TestSanitize: text and colors reach the terminal; the escape sequences
// that act on it or on the user (clipboard, title, replies, reset) do not,
// also when a record splits them.
func TestSanitize(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   []string // the records
		want string
	}{
		{"text and colors", []string{"a\tb\r\n\x1b[1;31mred\x1b[0m\b"}, "a\tb\r\n\x1b[1;31mred\x1b[0m\b"},
		{"clipboard (OSC 52, BEL)", []string{"x\x1b]52;c;cHduZWQ=\x07y"}, "xy"},
		{"title (OSC, ST)", []string{"x\x1b]0;pwned\x1b\\y"}, "xy"},
		{"split across records", []string{"x\x1b]52;c;", "cHdu\x07y\x1b[3", "2mz"}, "xy\x1b[32mz"},
		{"a query the terminal answers as input", []string{"\x1b[6n\x1b[c\x1bZok"}, "ok"},
		{"reset, cursor moves, DCS", []string{"\x1bc\x1b[2J\x1b[H\x1bP1$r\x1b\\done"}, "done"},
		{"other controls", []string{"a\x00\x07\x7fb"}, "ab"},
		{"an overlong SGR", []string{"\x1b[" + strings.Repeat("1;", 40) + "mz"}, "z"},
		{"UTF-8", []string{"héllo ✓"}, "héllo ✓"},
		// C1 controls, 8-bit and as UTF-8 (U+0080–U+009F).
		{"8-bit OSC 52 (0x9D), BEL", []string{"x\x9d52;c;cHduZWQ=\x07y"}, "xy"},
		{"8-bit OSC 52, 8-bit ST", []string{"x\x9d52;c;cHduZWQ=\x9cy"}, "xy"},
		{"UTF-8 OSC 52 (U+009D), UTF-8 ST", []string{"x\u009d52;c;cHduZWQ=\u009cy"}, "xy"},
		{"UTF-8 OSC title, split inside the character", []string{"x\xc2", "\x9d0;pwned\x1b\\y"}, "xy"},
		{"8-bit title, ESC ST", []string{"x\x9d2;pwned\x1b\\y"}, "xy"},
		{"8-bit CSI DSR query", []string{"a\x9b6nb\x9b5nc"}, "abc"},
		{"UTF-8 CSI DSR and DA queries", []string{"a\u009b6nb\u009bcc"}, "abc"},
		{"8-bit CSI SGR kept as 7-bit", []string{"\x9b31mred"}, "\x1b[31mred"},
		{"8-bit DCS, APC, PM, SOS", []string{"a\x90q\x9cb\x9fx\x9cc\x9ex\x9cd\x98x\x9ce"}, "abcde"},
		{"other C1 (IND, NEL, SS2)", []string{"a\x84b\u0085c\x8ed"}, "abcd"},
		{"UTF-8 beside C1 bytes", []string{"€ é \xe2\x82\xac"}, "€ é €"},
		{"a broken UTF-8 lead", []string{"a\xc2b"}, "ab"},
	} {
		var z sanitizer
		var got []byte
		for _, r := range tc.in {
			got = append(got, z.filter([]byte(r))...)
		}
		if string(got) != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}
