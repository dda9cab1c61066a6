package fakellm

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// CopilotTokenPath is where the server exchanges GitHub OAuth tokens for
// Copilot API tokens, as api.github.com does.
const CopilotTokenPath = "/copilot_internal/v2/token"

// copilotState is the fake GitHub side of Copilot.
type copilotState struct {
	oauth     string
	ttl       time.Duration
	issued    map[string]time.Time // API token → expiry
	exchanges int
	api       string // endpoints.api of the exchange; "": this server
}

// SetCopilotAPI makes the token exchange name api as the chat endpoint
// (endpoints.api), as GitHub does for Copilot Business accounts; "" names
// this server. Call it after SetCopilot.
func (s *Server) SetCopilotAPI(api string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.copilot != nil {
		s.copilot.api = api
	}
}

// SetCopilot makes the server act as GitHub's token endpoint too: GET
// CopilotTokenPath with "Authorization: token OAUTH" returns a new API
// token valid for ttl, and chat requests then need a current one
// (Bearer), else 401.
func (s *Server) SetCopilot(oauth string, ttl time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.copilot = &copilotState{oauth: oauth, ttl: ttl, issued: map[string]time.Time{}}
}

// CopilotTokenURL is the token endpoint's URL.
func (s *Server) CopilotTokenURL() string { return "http://" + s.ln.Addr().String() + CopilotTokenPath }

// CopilotExchanges counts the token exchanges answered.
func (s *Server) CopilotExchanges() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.copilot == nil {
		return 0
	}
	return s.copilot.exchanges
}

// ExpireCopilotTokens makes every API token issued so far invalid, as if
// their time had run out.
func (s *Server) ExpireCopilotTokens() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.copilot != nil {
		for k := range s.copilot.issued {
			s.copilot.issued[k] = time.Time{}
		}
	}
}

func (s *Server) serveCopilotToken(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.copilot
	if c == nil {
		writeError(w, http.StatusNotFound, "invalid_request_error", "fakellm: no Copilot here", "")
		return
	}
	if r.Header.Get("Authorization") != "token "+c.oauth {
		writeError(w, http.StatusUnauthorized, "authentication_error", "Bad credentials", "")
		return
	}
	c.exchanges++
	tok := fmt.Sprintf("tid=fake;exp=%d;n=%d", time.Now().Add(c.ttl).Unix(), c.exchanges)
	c.issued[tok] = time.Now().Add(c.ttl)
	api := c.api
	if api == "" {
		api = s.URL()
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"token": tok, "expires_at": time.Now().Add(c.ttl).Unix(), "refresh_in": int(c.ttl.Seconds()) - 60,
		"endpoints": map[string]string{"api": api},
	})
}

// copilotAuthorized reports whether a model request carries a current API
// token (always true when SetCopilot was not called).
func (s *Server) copilotAuthorized(r *http.Request) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.copilot == nil {
		return true
	}
	tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	exp, known := s.copilot.issued[tok]
	return ok && known && time.Now().Before(exp)
}
