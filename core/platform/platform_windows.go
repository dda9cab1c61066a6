package platform

func differences() []string {
	return []string{
		"the bash tool runs Git for Windows' bash.exe; without it the tool is not offered",
		"a command's processes live in a job object, which Windows kills with the host however it dies",
		"no kernel sandbox yet: commands are asked as without one",
		"an MCP server is killed alone, not the processes it started (they are put in no job)",
		"host_nice takes the below-normal priority class, whatever its value",
		"file modes: only read-only is kept; there is no executable bit",
		"a session's lock file stays on disk after the session closes (the lock itself is released)",
		untested,
	}
}
