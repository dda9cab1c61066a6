package platform

func differences() []string {
	return []string{
		unixWatcher,
		"the sandbox is Seatbelt (/usr/bin/sandbox-exec) with a generated profile; its profile is tested, its runs are not (no macOS here)",
		"host_nice lowers the whole host process (macOS has no per-session scheduling groups to lower)",
		"/bin/bash is bash 3.2: put Homebrew's bash first on PATH for commands that need bash 4 or 5 (associative arrays, mapfile)",
		untested,
	}
}
