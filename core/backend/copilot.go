package backend

import (
	"errors"

	"github.com/coder-nvim/coder-nvim/core/config"
	"github.com/coder-nvim/coder-nvim/core/provider"
)

func copilotOptions(cfg config.Config, opts *provider.Options) (func(), error) {
	return nil, errors.New("copilot: not yet")
}
