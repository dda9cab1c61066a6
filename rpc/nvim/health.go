package nvimhost

import (
	"context"
	"os"
	"time"

	"github.com/coder-nvim/coder-nvim/core/backend"
	"github.com/coder-nvim/coder-nvim/core/hostpath"
	"github.com/coder-nvim/coder-nvim/core/platform"
	"github.com/coder-nvim/coder-nvim/core/tools"
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
	out := map[string]any{"version": h.version, "priority": priority,
		"platform": platform.Name(), "platform_differences": append([]string{}, platform.Differences()...)}
	progs := hostpath.Resolve(os.Getenv("PATH"), h.root)
	if sess != nil {
		progs = sess.Programs()
	}
	if bash, err := tools.FindBash(progs); err != nil {
		out["bash_missing"] = tools.BashMissing(progs)
	} else {
		out["bash"] = bash
	}
	out["programs"], out["path_dropped"] = hostPrograms(progs, h.launcher), append([]string{}, progs.Dropped...)
	if cfgErr != nil {
		out["error"] = cfgErr.Error()
		return out, nil
	}
	if sess == nil {
		out["error"] = "the session is not open yet"
		return out, nil
	}
	st := sess.Status()
	if tasks := h.taskHealth(); len(tasks) > 0 {
		out["tasks"] = tasks
	}
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
			"tools": ms.Tools, "prompts": ms.Prompts, "resources": ms.Resources, "starts": ms.Starts, "last_error": ms.LastError,
			"auth": ms.Auth})
	}
	out["mcp_servers"] = servers
	out["sandbox"] = sess.SandboxStatus(h.ctx)
	out["checkpoints"] = sess.CheckpointMode(h.ctx)
	out["hooks"] = append([]string{}, sess.Hooks()...)
	if st.Demo {
		out["reachable"] = true
		out["reach"] = "built-in offline demo"
		return out, nil
	}
	ok, msg := reach(h.ctx, be)
	out["reachable"], out["reach"] = ok, msg
	return out, nil
}

// reach is the endpoint check of be (Backend.Check) within reachTimeout.
func reach(ctx context.Context, be *backend.Backend) (bool, string) {
	ctx, cancel := context.WithTimeout(ctx, reachTimeout)
	defer cancel()
	return be.Check(ctx)
}

// hostPrograms lists the host's own programs with the paths it runs, for
// :checkhealth (a missing one says so).
func hostPrograms(p hostpath.Programs, launcher string) []string {
	var out []string
	for _, e := range []struct{ name, path string }{
		{"git", p.Git}, {"rg", p.Ripgrep}, {"sh (hooks)", p.Sh}, {"bash", p.Bash}, {"sandbox launcher", launcher},
	} {
		if e.path == "" {
			e.path = "not found"
		}
		out = append(out, e.name+": "+e.path)
	}
	return out
}
