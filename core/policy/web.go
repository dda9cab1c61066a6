package policy

import (
	"fmt"
	"net"
	"strings"
)

// KindFetch is a tool that reads from the web (web_fetch, web_search):
// Action.Host is the host it reaches.
const KindFetch = "fetch"

// WebToolPrefix starts the key of an "always" for one host: "web:HOST".
const WebToolPrefix = "web:"

// Hosts are the user's web.allow and web.deny host patterns
// (MatchHost); a project file can only add to Deny.
type Hosts struct {
	Allow []string `json:"allow,omitempty"`
	Deny  []string `json:"deny,omitempty"`
}

// fetch decides a call that reaches a.Host: web.deny refuses, web.allow
// and yolo allow, everything else asks — plan mode too, since a fetch
// only reads, but what it sends (the URL, the query) leaves the machine.
// "Always" remembers the host.
func (p Policy) fetch(mode Mode, a Action) Verdict {
	host := strings.ToLower(hostOnly(a.Host))
	switch {
	case host == "":
		return Verdict{Decision: Deny, Reason: a.Tool + " denied: no host to fetch from"}
	case MatchHost(p.Web.Deny, host):
		return Verdict{Decision: Deny, Reason: fmt.Sprintf("%s denied: %s matches web.deny. Do not retry it; choose another source.", a.Tool, host)}
	case MatchHost(p.Web.Allow, host):
		return Verdict{Decision: Allow, Reason: host + " matches web.allow"}
	case p.preset() == PresetYolo:
		return Verdict{Decision: Allow, Reason: "the yolo preset fetches unasked"}
	case mode == ModeYolo:
		return Verdict{Decision: Allow, Reason: "yolo mode fetches unasked"}
	}
	return Verdict{Decision: Ask, Reason: fmt.Sprintf("%s reaches %s, a host not in web.allow", a.Tool, host),
		Keys: []Key{p.key(a, WebToolPrefix+host, nil)}}
}

// MatchHost reports whether host matches one of patterns: "example.com"
// is that host only, "*.example.com" its subdomains (not itself), "*"
// every host. Case and a port in host do not matter.
func MatchHost(patterns []string, host string) bool {
	host = strings.ToLower(strings.TrimSuffix(hostOnly(host), "."))
	for _, p := range patterns {
		p = strings.ToLower(strings.TrimSpace(p))
		switch {
		case p == "*":
			return true
		case strings.HasPrefix(p, "*."):
			if strings.HasSuffix(host, p[1:]) {
				return true
			}
		case p != "" && p == host:
			return true
		}
	}
	return false
}

// hostOnly is host without a port or IPv6 brackets.
func hostOnly(host string) string {
	if h, _, err := net.SplitHostPort(host); err == nil {
		return h
	}
	return strings.Trim(host, "[]")
}
