package nvimhost

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/coder-nvim/coder-nvim/core/backend"
	"github.com/coder-nvim/coder-nvim/core/config"
	"github.com/coder-nvim/coder-nvim/core/provider"
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
	ok, msg := reach(h.ctx, cfg, be)
	out["reachable"], out["reach"] = ok, msg
	return out, nil
}

// reach lists the endpoint's models the way the session does (be.Models:
// the preset's headers, the Copilot token), so a Copilot endpoint is asked
// with its token rather than with no key.
func reach(ctx context.Context, cfg config.Config, be *backend.Backend) (bool, string) {
	ctx, cancel := context.WithTimeout(ctx, reachTimeout)
	defer cancel()
	url := strings.TrimRight(cfg.BaseURL, "/") + "/models"
	if be == nil || be.Models == nil {
		return false, "no provider"
	}
	how := ""
	if cfg.Provider == config.ProviderCopilot {
		how = " with the Copilot token"
	}
	models, err := be.Models(ctx)
	var pe *provider.Error
	switch {
	case err == nil:
		return true, fmt.Sprintf("GET %s%s: HTTP 200 (%d models)", url, how, len(models))
	case errors.As(err, &pe) && (pe.StatusCode == http.StatusUnauthorized || pe.StatusCode == http.StatusForbidden):
		return true, fmt.Sprintf("GET %s%s: HTTP %d, the endpoint answers but refuses the credentials: %s", url, how, pe.StatusCode, pe.Message)
	case errors.As(err, &pe) && pe.StatusCode >= 400:
		return true, fmt.Sprintf("GET %s%s: HTTP %d (the endpoint answers; some servers have no /models)", url, how, pe.StatusCode)
	}
	return false, fmt.Sprintf("GET %s%s: %v", url, how, err)
}
