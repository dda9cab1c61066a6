package config

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
)

// Web is what the web tools may reach (:help coder-web). Only the user's
// own config widens it: a project file, trusted or not, may only add to
// Deny.
type Web struct {
	// Allow and Deny are host patterns ("example.com", "*.example.com",
	// "*"): a fetch from an allowed host runs unasked, from a denied one
	// never; every other host is asked once (y/n/always for the host).
	Allow []string `json:"allow"`
	Deny  []string `json:"deny"`
	// AllowPrivate lets fetches reach loopback, private and link-local
	// addresses (a local documentation server).
	AllowPrivate bool `json:"allow_private"`
	// Search is web_search's backend; without one the tool is not
	// offered.
	Search WebSearch `json:"search"`
}

// WebSearch is the search backend: "searxng" (URL is the instance),
// "brave" or "tavily" (URL overrides the API's address; the key is read
// from the variable KeyEnv names, default BRAVE_API_KEY, TAVILY_API_KEY),
// or "hosted", the provider's own search on the Responses API.
type WebSearch struct {
	Backend string `json:"backend"`
	URL     string `json:"url"`
	KeyEnv  string `json:"key_env"`
}

// webBackends are web.search.backend's values (core/web.Backends).
var webBackends = []string{"searxng", "brave", "tavily", "hosted"}

// SearchKeyEnv is the variable holding the search backend's key.
func (w WebSearch) SearchKeyEnv() string {
	if w.KeyEnv != "" {
		return w.KeyEnv
	}
	switch strings.ToLower(w.Backend) {
	case "brave":
		return "BRAVE_API_KEY"
	case "tavily":
		return "TAVILY_API_KEY"
	}
	return ""
}

func (w Web) validate(bad func(key, format string, args ...any)) {
	for key, list := range map[string][]string{"web.allow": w.Allow, "web.deny": w.Deny} {
		for i, p := range list {
			if p = strings.TrimSpace(p); p == "" || strings.ContainsAny(p, "/ :") || strings.Contains(p[1:], "*") || p[0] == '*' && p != "*" && !strings.HasPrefix(p, "*.") {
				bad(fmt.Sprintf("%s[%d]", key, i), `want a host pattern such as "example.com", "*.example.com" or "*", got %q`, list[i])
			}
		}
	}
	if b := strings.ToLower(w.Search.Backend); b != "" && !slices.Contains(webBackends, b) {
		bad("web.search.backend", "unknown backend %q (known: %s)", w.Search.Backend, strings.Join(webBackends, ", "))
	}
	if w.Search.URL != "" {
		if u, err := url.Parse(w.Search.URL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			bad("web.search.url", "want an http(s) URL, got %q", w.Search.URL)
		}
	}
	if strings.EqualFold(w.Search.Backend, "searxng") && w.Search.URL == "" {
		bad("web.search.url", "the searxng backend needs the instance's URL")
	}
}

// narrowWeb is what a project file's web settings leave of the user's:
// its deny patterns are added, anything that would widen is named in
// ignore.
func narrowWeb(user, proj Web, ignore func(string, any)) Web {
	out := user
	out.Deny = slices.Clone(user.Deny)
	for _, p := range proj.Deny {
		if !slices.Contains(out.Deny, p) {
			out.Deny = append(out.Deny, p)
		}
	}
	var extra []string
	for _, p := range proj.Allow {
		if !slices.Contains(user.Allow, p) {
			extra = append(extra, p)
		}
	}
	if len(extra) > 0 {
		ignore("web.allow", extra)
	}
	if proj.AllowPrivate && !user.AllowPrivate {
		ignore("web.allow_private", true)
	}
	if proj.Search != (WebSearch{}) && proj.Search != user.Search {
		ignore("web.search", proj.Search)
	}
	return out
}
