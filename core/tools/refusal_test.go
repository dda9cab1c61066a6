package tools

import "testing"

func TestNetworkRefused(t *testing.T) {
	tests := []struct {
		out  string
		code int
		want bool
	}{
		{"curl: (7) Failed to connect to 127.0.0.1 port 8765 after 0 ms: Couldn't connect to server", 7, true},
		{"curl: (6) Could not resolve host: example.com", 6, true},
		{`Get "https://proxy.golang.org/x": dial tcp: lookup proxy.golang.org on 127.0.0.53:53: dial udp 127.0.0.53:53: socket: operation not permitted`, 1, true},
		{"    sock = socket(af, socktype, proto)\nPermissionError: [Errno 1] Operation not permitted", 1, true},
		{"touch: cannot touch '/etc/x': Permission denied", 1, false},
		{"chmod: changing permissions of 'x': Operation not permitted", 1, false},
		{"curl: (7) Failed to connect", 0, false},
	}
	for _, tc := range tests {
		if got := networkRefused(ShellResult{Stderr: tc.out, ExitCode: tc.code}); got != tc.want {
			t.Errorf("networkRefused(%q, exit %d) = %v, want %v", tc.out, tc.code, got, tc.want)
		}
	}
}
