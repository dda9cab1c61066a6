package main

import (
	"errors"
	"os/user"
	"runtime"
	"strings"
	"testing"
)

// TestFindHome: without HOME the passwd entry's home directory is used and
// said; without a usable one the note says the user's directories cannot
// be found; with HOME nothing changes.
func TestFindHome(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no HOME on Windows")
	}
	dir := t.TempDir()
	tests := []struct {
		name    string
		home    string
		current func() (*user.User, error)
		setHome string // HOME afterwards
		note    string
	}{
		{"HOME set", "/h", func() (*user.User, error) { t.Fatal("passwd read although HOME is set"); return nil, nil }, "", ""},
		{"from passwd", "", func() (*user.User, error) { return &user.User{Username: "u", HomeDir: dir}, nil }, dir, "using " + dir},
		{"no entry", "", func() (*user.User, error) { return nil, errors.New("unknown userid") }, "", "cannot be found"},
		{"no home dir", "", func() (*user.User, error) { return &user.User{Username: "u", HomeDir: dir + "/missing"}, nil }, "", "cannot be found"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			set := ""
			getenv := func(k string) string {
				if k == "HOME" {
					return tt.home
				}
				return ""
			}
			setenv := func(k, v string) error { set = v; return nil }
			note := findHome(getenv, setenv, tt.current)
			if set != tt.setHome || (tt.note == "") != (note == "") || !strings.Contains(note, tt.note) {
				t.Errorf("findHome: HOME set to %q, note %q; want %q and a note containing %q", set, note, tt.setHome, tt.note)
			}
		})
	}
}
