// Package mcpauth is OAuth for remote (streamable HTTP) MCP servers: the
// authorization code flow with PKCE of the go-sdk's auth package (its
// AuthorizationCodeHandler does discovery, dynamic client registration
// and the code exchange), a loopback listener for the redirect, and the
// tokens kept in the host's state directory, one 0600 file per server
// and address, refreshed as they expire. A token is only ever sent to the
// address it was issued for: the file records it, and a server whose
// configured address differs gets none.
package mcpauth

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/coder-nvim/coder-nvim/core/atomicfile"
	"golang.org/x/oauth2"
)

// Record is what is kept of one server's authorization.
type Record struct {
	Server       string    `json:"server"`
	URL          string    `json:"url"` // the MCP endpoint the token is for
	ClientID     string    `json:"client_id"`
	ClientSecret string    `json:"client_secret,omitempty"`
	AuthURL      string    `json:"auth_url"`
	TokenURL     string    `json:"token_url"`
	AuthStyle    int       `json:"auth_style,omitempty"`
	Scopes       []string  `json:"scopes,omitempty"`
	AccessToken  string    `json:"access_token"`
	RefreshToken string    `json:"refresh_token,omitempty"`
	TokenType    string    `json:"token_type,omitempty"`
	Expiry       time.Time `json:"expiry,omitzero"`
}

// Store keeps the records under Dir (the host's state directory's
// mcp-oauth): never in the workspace, never in a session file.
type Store struct {
	Dir string
}

// path is the file of server at url: both in its name, so a changed
// address never finds another's token.
func (s Store) path(server, url string) string {
	sum := sha256.Sum256([]byte(url))
	return filepath.Join(s.Dir, server+"-"+hex.EncodeToString(sum[:8])+".json")
}

// Load is the record of server at url; nil when there is none.
func (s Store) Load(server, url string) (*Record, error) {
	if s.Dir == "" {
		return nil, nil
	}
	data, err := os.ReadFile(s.path(server, url))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the MCP token of %s: %w", server, err)
	}
	var r Record
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("MCP token file of %s: %w", server, err)
	}
	if r.URL != url || r.Server != server {
		return nil, nil // not this server's: never sent elsewhere
	}
	return &r, nil
}

// Save writes r whole, readable by the user alone.
func (s Store) Save(r *Record) error {
	if s.Dir == "" {
		return errors.New("no state directory to keep MCP tokens in (set XDG_STATE_HOME or HOME)")
	}
	if err := os.MkdirAll(s.Dir, 0o700); err != nil {
		return fmt.Errorf("MCP token directory: %w", err)
	}
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicfile.WriteFileMode(s.path(r.Server, r.URL), data, 0o600); err != nil {
		return fmt.Errorf("save the MCP token of %s: %w", r.Server, err)
	}
	return nil
}

// Update writes r only while its file exists: a refresh must not bring
// back a token the user logged out of (in this session or another).
func (s Store) Update(r *Record) error {
	if _, err := os.Stat(s.path(r.Server, r.URL)); err != nil {
		return nil
	}
	return s.Save(r)
}

// Delete forgets server's token at url.
func (s Store) Delete(server, url string) error {
	if s.Dir == "" {
		return nil
	}
	err := os.Remove(s.path(server, url))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}

func (r *Record) config() *oauth2.Config {
	return &oauth2.Config{
		ClientID: r.ClientID, ClientSecret: r.ClientSecret, Scopes: r.Scopes,
		Endpoint: oauth2.Endpoint{AuthURL: r.AuthURL, TokenURL: r.TokenURL, AuthStyle: oauth2.AuthStyle(r.AuthStyle)},
	}
}

func (r *Record) token() *oauth2.Token {
	return &oauth2.Token{AccessToken: r.AccessToken, RefreshToken: r.RefreshToken, TokenType: r.TokenType, Expiry: r.Expiry}
}

func (r *Record) setToken(t *oauth2.Token) {
	r.AccessToken, r.TokenType, r.Expiry = t.AccessToken, t.TokenType, t.Expiry
	if t.RefreshToken != "" {
		r.RefreshToken = t.RefreshToken
	}
}
