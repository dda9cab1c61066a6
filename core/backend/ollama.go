package backend

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"syscall"
	"time"
)

// OllamaProbeWait bounds how long start-up waits for Ollama to answer: a
// local server answers (or refuses the connection) within a millisecond
// or two, so a longer wait would only delay the demo.
const OllamaProbeWait = 50 * time.Millisecond

// probeOllama asks an Ollama server at base (http://localhost:11434) for
// its models (GET /api/tags), waiting at most OllamaProbeWait. It reports
// whether one answers with at least one model, and why in either case.
func probeOllama(ctx context.Context, base string) (string, []string, bool) {
	models, err := ollamaModels(ctx, base, OllamaProbeWait)
	switch {
	case err != nil:
		return fmt.Sprintf("no Ollama at %s (%v)", base, err), nil, false
	case len(models) == 0:
		return fmt.Sprintf("Ollama at %s has no models (ollama pull …)", base), nil, false
	}
	return fmt.Sprintf("nothing else configured and Ollama answers at %s (%d models)", base, len(models)), models, true
}

// ollamaModels lists an Ollama server's model names, sorted.
func ollamaModels(ctx context.Context, base string, wait time.Duration) ([]string, error) {
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimRight(base, "/")+"/api/tags", nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("no answer within %v", wait)
		}
		if errors.Is(err, syscall.ECONNREFUSED) {
			return nil, errors.New("connection refused")
		}
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("HTTP %d", resp.StatusCode)
	}
	var tags struct {
		Models []struct {
			Name string `json:"name"`
		} `json:"models"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 4<<20)).Decode(&tags); err != nil {
		return nil, fmt.Errorf("not an Ollama answer: %v", err)
	}
	var names []string
	for _, m := range tags.Models {
		if m.Name != "" {
			names = append(names, m.Name)
		}
	}
	slices.Sort(names)
	return names, nil
}
