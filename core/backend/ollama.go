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
// or two, so a longer wait would only delay the demo. The probe goes on
// in the background for OllamaProbeTimeout (a server busy loading a
// model answers late); an answer then is used from the next turn.
const (
	OllamaProbeWait    = 50 * time.Millisecond
	OllamaProbeTimeout = 10 * time.Second
)

// probeResult is what the Ollama probe found, and why in either case.
type probeResult struct {
	reason string
	models []string
	ok     bool // an Ollama answered with at least one model
}

// ollamaProbe is a probe running in the background.
type ollamaProbe struct {
	done <-chan probeResult // receives the one result
	stop context.CancelFunc
}

// startOllamaProbe asks an Ollama server at base (http://localhost:11434)
// for its models (GET /api/tags) in the background, for at most
// OllamaProbeTimeout.
func startOllamaProbe(ctx context.Context, base string) ollamaProbe {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan probeResult, 1)
	go func() {
		models, err := ollamaModels(ctx, base, OllamaProbeTimeout)
		switch {
		case err != nil:
			done <- probeResult{reason: fmt.Sprintf("no Ollama at %s (%v)", base, err)}
		case len(models) == 0:
			done <- probeResult{reason: fmt.Sprintf("Ollama at %s has no models (ollama pull …)", base)}
		default:
			done <- probeResult{reason: fmt.Sprintf("nothing else configured and Ollama answers at %s (%d models)", base, len(models)), models: models, ok: true}
		}
	}()
	return ollamaProbe{done: done, stop: cancel}
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
