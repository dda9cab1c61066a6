package platform

func differences() []string {
	return []string{
		"bash is not in the base system: `pkg install bash`, or the bash tool is not offered",
		unixWatcher,
		"no kernel sandbox yet (Capsicum is not used): commands are asked as without one",
		"host_nice lowers the whole host process (FreeBSD has no per-session scheduling groups to lower)",
		untested,
	}
}
