package config

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// UserFile is the user-level config path.
func UserFile() string {
	dir := os.Getenv("XDG_CONFIG_HOME")
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return ""
		}
		dir = filepath.Join(home, ".config")
	}
	return filepath.Join(dir, "coder", "config.json")
}

// WorkspaceFile is the workspace-level config path.
func WorkspaceFile(root string) string {
	return filepath.Join(root, ".coder", "config.json")
}

// Load merges defaults, the user file, the workspace file of root and the
// environment (getenv, usually os.Getenv). A file that does not exist is
// skipped; a malformed one is an error naming the file and the key.
func Load(root string, getenv func(string) string) (Config, error) {
	cfg := Defaults()
	cfg.StateDir = StateDir(getenv)
	if path := UserFile(); path != "" {
		cfg.AgentsMD.GlobalDir = filepath.Dir(path)
		ok, err := mergeFile(&cfg, path)
		if err != nil {
			return Config{}, err
		}
		if ok {
			cfg.Files = append(cfg.Files, path)
		}
	}
	// The workspace's own file came with the repository: it applies whole
	// only once the user trusts this content of it (see trust.go).
	path := WorkspaceFile(root)
	data, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		cfg.Workspace = Workspace{File: path, Invalid: fmt.Sprintf("config %s: %v; the file is ignored", path, err)}
	default:
		cfg.Files = append(cfg.Files, path)
		ok := trusted(cfg.StateDir, root, data)
		if len(bytes.TrimSpace(data)) > 0 {
			merged := cfg
			if err := mergeWorkspace(&merged, data, ok); err != nil {
				// The user's settings stand; the notice names the key.
				cfg.Workspace = Workspace{File: path, Invalid: fmt.Sprintf("config %s: %v; the file is ignored until it is fixed", path, err)}
				break
			}
			cfg = merged
		}
		cfg.Workspace.File, cfg.Workspace.Trusted, cfg.Workspace.Hash = path, ok, trustHash(root, data)
		if ok {
			cfg.set.note(path, data, true)
		}
	}
	if v := getenv("OPENAI_BASE_URL"); v != "" {
		cfg.BaseURL = v
		cfg.set.baseURL, cfg.set.baseURLByProject = true, false
	}
	if v := getenv("CODER_MODEL"); v != "" {
		cfg.Model = v
		cfg.set.model = true
	}
	if v := getenv("CODER_PROVIDER"); v != "" {
		cfg.Provider = v
		cfg.set.providerFrom, cfg.set.providerByProject = "CODER_PROVIDER", false
	}
	if err := cfg.resolveProvider(getenv); err != nil {
		return Config{}, err
	}
	if err := cfg.Validate(); err != nil {
		return Config{}, err
	}
	return cfg, nil
}

func mergeFile(cfg *Config, path string) (bool, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("config %s: %w", path, err)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return true, nil
	}
	if err := Decode(data, cfg); err != nil {
		return false, fmt.Errorf("config %s: %w", path, err)
	}
	cfg.set.note(path, data, false)
	// Check values here, so an error names the file that set them.
	if err := cfg.validate(true); err != nil {
		return false, fmt.Errorf("config %s: %w", path, err)
	}
	return true, nil
}
