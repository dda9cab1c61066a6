package main

import (
	"fmt"
	"os"
	"os/user"
	"runtime"
)

// findHome fills in HOME when the process was started without it (avante
// starts its agent so): the user's config, trust records and session
// origins live under it. The passwd entry names the home directory
// (os/user reads /etc/passwd in a static build). It returns what to tell
// the user: where HOME came from, or that the user's directories cannot be
// found; "" when HOME was set. Windows has no HOME to find.
func findHome(getenv func(string) string, setenv func(k, v string) error, current func() (*user.User, error)) string {
	if runtime.GOOS == "windows" || getenv("HOME") != "" {
		return ""
	}
	u, err := current()
	if err == nil && u.HomeDir != "" {
		if st, serr := os.Stat(u.HomeDir); serr == nil && st.IsDir() {
			if err := setenv("HOME", u.HomeDir); err == nil {
				return fmt.Sprintf("HOME is not set; using %s, the home directory of user %s's passwd entry", u.HomeDir, u.Username)
			}
		}
	}
	why := "the user has no passwd entry"
	if err == nil {
		why = fmt.Sprintf("the passwd entry of user %s names no usable home directory (%q)", u.Username, u.HomeDir)
	}
	return fmt.Sprintf("HOME is not set and %s: the user's configuration, trust records and session origins cannot be found unless XDG_CONFIG_HOME and XDG_STATE_HOME are set", why)
}
