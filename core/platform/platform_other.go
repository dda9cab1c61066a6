//go:build !(linux || darwin || freebsd || windows)

package platform

func differences() []string {
	return []string{"not a supported platform: it may build, nothing is checked here"}
}
