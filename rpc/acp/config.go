package acp

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/coder-nvim/coder-nvim/core/policy"
	sdk "github.com/coder/acp-go-sdk"
)

// Session configuration options (configOptions): the mode and the model as
// selects, for clients that read only these (codecompanion since April
// 2026); the legacy modes field stays for the others.
const (
	optMode  sdk.SessionConfigId = "mode"
	optModel sdk.SessionConfigId = "model"
)

// modelsTimeout bounds the GET /models asked at session start.
const modelsTimeout = 2 * time.Second

// listModels asks the endpoint for its models; no list (an endpoint
// without /models, an error) leaves the current one alone.
func (s *session) listModels() {
	s.mu.Lock()
	be := s.be
	s.mu.Unlock()
	if be == nil || be.Models == nil {
		return
	}
	ctx, cancel := context.WithTimeout(s.srv.ctx, modelsTimeout)
	defer cancel()
	models, err := be.ModelIDs(ctx)
	if err != nil {
		s.srv.log.Debug("no model list", "session", s.id, "err", err)
		return
	}
	s.mu.Lock()
	s.models = models
	s.mu.Unlock()
}

// configOptions are the session's options with their current values.
func (s *session) configOptions() []sdk.SessionConfigOption {
	st := s.eng.Status()
	s.mu.Lock()
	models := slices.Clone(s.models)
	s.mu.Unlock()
	if !slices.Contains(models, st.Model) {
		models = append([]string{st.Model}, models...)
	}
	var modeOpts sdk.SessionConfigSelectOptionsUngrouped
	for _, m := range modes {
		modeOpts = append(modeOpts, sdk.SessionConfigSelectOption{Value: sdk.SessionConfigValueId(m.id), Name: m.name, Description: sdk.Ptr(m.desc)})
	}
	var modelOpts sdk.SessionConfigSelectOptionsUngrouped
	for _, m := range models {
		modelOpts = append(modelOpts, sdk.SessionConfigSelectOption{Value: sdk.SessionConfigValueId(m), Name: m})
	}
	mode := sdk.NewSessionConfigOptionSelect(sdk.SessionConfigValueId(st.Mode), sdk.SessionConfigSelectOptions{Ungrouped: &modeOpts})
	mode.Select.Id, mode.Select.Name = optMode, "Mode"
	mode.Select.Category = sdk.Ptr(sdk.SessionConfigOptionCategoryMode)
	mode.Select.Description = sdk.Ptr("What the agent may do without asking")
	model := sdk.NewSessionConfigOptionSelect(sdk.SessionConfigValueId(st.Model), sdk.SessionConfigSelectOptions{Ungrouped: &modelOpts})
	model.Select.Id, model.Select.Name = optModel, "Model"
	model.Select.Category = sdk.Ptr(sdk.SessionConfigOptionCategoryModel)
	return []sdk.SessionConfigOption{mode, model}
}

// setConfigOption applies a client's choice; an unknown option or value is
// an invalid-params error naming the choices.
func (s *session) setConfigOption(id sdk.SessionConfigId, value string) error {
	switch id {
	case optMode:
		m, err := policy.ParseMode(value)
		if err != nil {
			return sdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf("unknown mode %q: want one of plan, default, auto-edit, yolo", value)})
		}
		s.eng.SetMode(m)
	case optModel:
		s.mu.Lock()
		models := slices.Clone(s.models)
		s.mu.Unlock()
		value = strings.TrimSpace(value)
		if value == "" || len(models) > 0 && !slices.Contains(models, value) && value != s.eng.Status().Model {
			return sdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf("unknown model %q: the endpoint lists %s", value, strings.Join(models, ", "))})
		}
		s.eng.SetModel(value)
	default:
		return sdk.NewInvalidParams(map[string]any{"error": fmt.Sprintf("unknown config option %q: want %q or %q", id, optMode, optModel)})
	}
	return nil
}

// configUpdate is the config_option_update sent when an option changed by
// any route (/mode, /model, the client).
func (s *session) configUpdate() sdk.SessionUpdate {
	return sdk.SessionUpdate{ConfigOptionUpdate: &sdk.SessionConfigOptionUpdate{ConfigOptions: s.configOptions()}}
}
