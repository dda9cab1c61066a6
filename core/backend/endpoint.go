package backend

// What a backend's endpoint lists (GET /models) and whether it answers:
// the model ids a front end offers and the health check of :checkhealth.

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/coder-nvim/coder-nvim/core/config"
	"github.com/coder-nvim/coder-nvim/core/provider"
)

// errNoModels is the answer of a backend that cannot list models.
var errNoModels = errors.New("the provider lists no models")

// ModelIDs lists the ids of the endpoint's models (Models); an error
// means no list, not a broken provider.
func (b *Backend) ModelIDs(ctx context.Context) ([]string, error) {
	if b == nil || b.Models == nil {
		return nil, errNoModels
	}
	models, err := b.Models(ctx)
	if err != nil {
		return nil, err
	}
	return provider.ModelIDs(models), nil
}

// Check asks the endpoint of b's configuration for its models the way a
// session does (Models: the preset's headers, the Copilot token, so a
// Copilot endpoint is asked with its token rather than with no key) and
// reports whether it answered, with a line saying how. Any HTTP answer
// (even 401) counts as reachable, and a 401/403 is reported as a key
// problem. ctx bounds the request. A nil b is "no provider".
func (b *Backend) Check(ctx context.Context) (reachable bool, report string) {
	if b == nil || b.Models == nil {
		return false, "no provider"
	}
	url := strings.TrimRight(b.Config.BaseURL, "/") + "/models"
	how := ""
	if b.Config.Provider == config.ProviderCopilot {
		how = " with the Copilot token"
	}
	models, err := b.Models(ctx)
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
