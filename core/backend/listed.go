package backend

import (
	"context"
	"fmt"
	"time"
)

// listedModelWait bounds the model list asked for at start when only a
// base URL names the endpoint.
const listedModelWait = 2 * time.Second

// chooseListedModel: an OpenAI-compatible server named by its base URL
// alone (LM Studio, vLLM, OPENAI_BASE_URL) rarely serves the preset's
// default model. With no model configured, it takes the first one the
// endpoint lists when the default is not among them, and says so; an
// endpoint that lists none, or does not answer in time, keeps the
// default.
func chooseListedModel(ctx context.Context, b *Backend) {
	cfg := b.Config
	if !cfg.BaseURLSet() || cfg.ModelSet() || b.Models == nil {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, listedModelWait)
	defer cancel()
	models, err := b.Models(ctx)
	if err != nil || len(models) == 0 {
		return
	}
	for _, m := range models {
		if m.ID == cfg.Model {
			return
		}
	}
	b.Config.Model = models[0].ID
	b.Reason += fmt.Sprintf("; model %s, the first the endpoint lists (%s is not among them; set \"model\" to choose)", models[0].ID, cfg.Model)
}
