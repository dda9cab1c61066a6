package platform

func differences() []string {
	return []string{
		unixWatcher,
		"host_nice lowers the whole host process (macOS has no per-session scheduling groups to lower)",
		"/bin/bash is bash 3.2: put Homebrew's bash first on PATH for commands that need bash 4 or 5 (associative arrays, mapfile)",
		untested,
	}
}
