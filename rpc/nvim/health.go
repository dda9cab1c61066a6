package nvimhost

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// reachTimeout bounds the provider reachability check of :checkhealth.
const reachTimeout = 2 * time.Second

// healthRequest reports the provider configuration and whether its
// endpoint answers, for :checkhealth coder. Reachability is a GET of
// {base_url}/models with a 2 s timeout; any HTTP answer (even 401) counts
// as reachable, and a 401/403 is reported as a key problem.
func (h *host) healthRequest() (map[string]any, error) {
	h.waitOpened()
	h.mu.Lock()
	cfg, cfgErr, sess, priority, be := h.cfg, h.cfgErr, h.sess, h.priority, h.be
	h.mu.Unlock()
	out := map[string]any{"version": h.version, "priority": priority}
	if cfgErr != nil {
		out["error"] = cfgErr.Error()
		return out, nil
	}
	if sess == nil {
		out["error"] = "the session is not open yet"
		return out, nil
	}
	st := sess.Status()
	out["provider"] = cfg.Provider
	out["provider_reason"] = cfg.ProviderReason
	if be != nil {
		out["provider_reason"] = be.Reason
	}
	out["wire_api"] = cfg.WireAPI
	out["context_window"] = sess.ContextWindow()
	out["model"] = st.Model
	out["demo"] = st.Demo
	out["base_url"] = cfg.BaseURL
	out["api_key_env"] = cfg.APIKeyEnv
	out["api_key_set"] = cfg.APIKey != ""
	out["config_files"] = append([]string{}, cfg.Files...)
	out["session_id"] = sess.ID()
	out["cwd"] = st.Cwd
	servers := []map[string]any{}
	for _, ms := range sess.MCPStatus() {
		servers = append(servers, map[string]any{"name": ms.Name, "transport": ms.Transport, "state": ms.State,
			"tools": ms.Tools, "starts": ms.Starts, "last_error": ms.LastError})
	}
	out["mcp_servers"] = servers
	if st.Demo {
		out["reachable"] = true
		out["reach"] = "built-in offline demo"
		return out, nil
	}
	ok, msg := reach(h.ctx, cfg.BaseURL, cfg.APIKey)
	out["reachable"], out["reach"] = ok, msg
	return out, nil
}

func reach(ctx context.Context, base, key string) (bool, string) {
	ctx, cancel := context.WithTimeout(ctx, reachTimeout)
	defer cancel()
	url := strings.TrimRight(base, "/") + "/models"
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return false, fmt.Sprintf("bad base_url %q: %v", base, err)
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return false, fmt.Sprintf("GET %s: %v", url, err)
	}
	resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		return true, fmt.Sprintf("GET %s: HTTP %d (the endpoint answers but rejects the API key)", url, resp.StatusCode)
	case resp.StatusCode >= 400:
		return true, fmt.Sprintf("GET %s: HTTP %d (the endpoint answers; some servers have no /models)", url, resp.StatusCode)
	}
	return true, fmt.Sprintf("GET %s: HTTP %d", url, resp.StatusCode)
}
