package backend

import (
	"fmt"
	"net/http"

	"github.com/coder-nvim/coder-nvim/core/config"
	"github.com/coder-nvim/coder-nvim/core/copilot"
	"github.com/coder-nvim/coder-nvim/core/provider"
)

// copilotOptions makes opts authenticate as GitHub Copilot: the OAuth
// token of cfg.Copilot.TokenFile is exchanged at cfg.Copilot.TokenURL for
// API tokens, refreshed before they expire.
func copilotOptions(cfg config.Config, opts *provider.Options) (func(), error) {
	oauth, err := copilot.ReadOAuthToken(cfg.Copilot.TokenFile)
	if err != nil {
		return nil, err
	}
	src := copilot.NewSource(oauth, cfg.Copilot.TokenFile, cfg.Copilot.TokenURL, nil, nil)
	tr := &copilot.Transport{Source: src}
	if !cfg.BaseURLSet() {
		// The account's endpoint (Copilot Business, Enterprise) as the
		// token exchange names it; a configured base_url is kept.
		tr.Route = cfg.BaseURL
	}
	opts.HTTPClient = &http.Client{Transport: tr}
	opts.APIKey, opts.KeyEnv, opts.Headers = "", "", nil
	opts.AuthHint = fmt.Sprintf("sign in again with copilot.vim or copilot.lua (:Copilot auth; token file %s)", cfg.Copilot.TokenFile)
	return func() {}, nil
}
