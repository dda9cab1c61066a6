package mcpauth

import (
	"context"
	"errors"
	"fmt"
	"html"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"
)

// ErrLoginNeeded: the server asks for OAuth and no usable token is kept.
var ErrLoginNeeded = errors.New("needs login")

// Options describe one server's OAuth.
type Options struct {
	Server, URL string
	Store       Store
	// ClientID (and ClientSecret) come from the user's config; without
	// one the client registers itself (dynamic client registration).
	ClientID, ClientSecret string
	// RedirectPort is the loopback port of the redirect (0: any free
	// one; a pre-registered client may need a fixed one).
	RedirectPort int
	// HTTPClient talks to the authorization server; nil: the default.
	HTTPClient *http.Client
	// Open shows the authorization address to the user (their browser);
	// it returns once handed over, not when they have signed in.
	Open func(ctx context.Context, url string) error
}

func (o Options) client() *http.Client {
	if o.HTTPClient != nil {
		return o.HTTPClient
	}
	return http.DefaultClient
}

// saver is a token source that writes each new token to the store, so a
// refreshed token outlives the session.
type saver struct {
	mu    sync.Mutex
	base  oauth2.TokenSource
	rec   *Record
	store Store
	last  string
}

func (s *saver) Token() (*oauth2.Token, error) {
	t, err := s.base.Token()
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if t.AccessToken != s.last {
		s.rec.setToken(t)
		if err := s.store.Update(s.rec); err != nil {
			return nil, err
		}
		s.last = t.AccessToken
	}
	return t, nil
}

func (o Options) source(rec *Record, cfg *oauth2.Config, tok *oauth2.Token) oauth2.TokenSource {
	// Refreshes outlive the request that made the source (the SDK does
	// the same): a background context carrying the client.
	ctx := context.WithValue(context.Background(), oauth2.HTTPClient, o.client())
	return &saver{base: cfg.TokenSource(ctx, tok), rec: rec, store: o.Store, last: rec.AccessToken}
}

// stored is the handler of an ordinary connection: the kept token,
// refreshed and saved; a 401 it cannot answer is ErrLoginNeeded.
type stored struct {
	o  Options
	ts oauth2.TokenSource
}

// Stored is the handler of an ordinary connection. It never opens
// anything: a login is the user's /mcp login.
func Stored(o Options) (auth.OAuthHandler, error) {
	rec, err := o.Store.Load(o.Server, o.URL)
	if err != nil {
		return nil, err
	}
	h := &stored{o: o}
	if rec != nil {
		h.ts = o.source(rec, rec.config(), rec.token())
	}
	return h, nil
}

func (h *stored) TokenSource(context.Context) (oauth2.TokenSource, error) {
	if h.ts == nil {
		return nil, nil
	}
	return h.ts, nil
}

func (h *stored) Authorize(_ context.Context, _ *http.Request, resp *http.Response) error {
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return fmt.Errorf("MCP server %s %w: /mcp login %s", h.o.Server, ErrLoginNeeded, h.o.Server)
}

// Login is the handler of a connection the user asked to log in: the
// go-sdk's authorization code flow (PKCE, discovery, registration), the
// address handed to Open and the code taken from the loopback redirect.
// close stops the listener.
func Login(o Options) (h auth.OAuthHandler, closeFn func(), err error) {
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(o.RedirectPort)))
	if err != nil {
		return nil, nil, fmt.Errorf("loopback listener for the OAuth redirect: %w", err)
	}
	redirect := "http://127.0.0.1:" + strconv.Itoa(ln.Addr().(*net.TCPAddr).Port) + "/callback"
	codes := make(chan *auth.AuthorizationResult, 1)
	srv := &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/callback" {
			http.NotFound(w, r)
			return
		}
		q := r.URL.Query()
		if e := q.Get("error"); e != "" {
			fmt.Fprintf(w, "coder-nvim: sign-in to %s failed: %s. You can close this page.", html.EscapeString(o.Server), html.EscapeString(e))
			select {
			case codes <- &auth.AuthorizationResult{State: q.Get("state")}:
			default:
			}
			return
		}
		select {
		case codes <- &auth.AuthorizationResult{Code: q.Get("code"), State: q.Get("state"), Iss: q.Get("iss")}:
		default:
		}
		fmt.Fprintf(w, "coder-nvim: signed in to %s. You can close this page.", html.EscapeString(o.Server))
	})}
	go func() { _ = srv.Serve(ln) }()
	rec := &Record{Server: o.Server, URL: o.URL}
	cfg := &auth.AuthorizationCodeHandlerConfig{
		RedirectURL: redirect,
		AuthorizationCodeFetcher: func(ctx context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
			if u, err := url.Parse(args.URL); err != nil || (u.Scheme != "https" && u.Scheme != "http") {
				return nil, fmt.Errorf("authorization address %q: want http(s)", args.URL)
			}
			if err := o.Open(ctx, args.URL); err != nil {
				return nil, fmt.Errorf("open the sign-in page: %w", err)
			}
			select {
			case res := <-codes:
				if res.Code == "" {
					return nil, errors.New("the authorization server refused the sign-in")
				}
				return res, nil
			case <-ctx.Done():
				return nil, fmt.Errorf("no sign-in came back: %w", ctx.Err())
			}
		},
		RequestRefreshToken: true,
		Client:              o.client(),
		NewTokenSource: func(_ context.Context, c *oauth2.Config, t *oauth2.Token) (oauth2.TokenSource, error) {
			rec.ClientID, rec.ClientSecret = c.ClientID, c.ClientSecret
			rec.AuthURL, rec.TokenURL, rec.AuthStyle = c.Endpoint.AuthURL, c.Endpoint.TokenURL, int(c.Endpoint.AuthStyle)
			rec.Scopes = c.Scopes
			rec.setToken(t)
			if err := o.Store.Save(rec); err != nil {
				return nil, err
			}
			return o.source(rec, c, t), nil
		},
	}
	if o.ClientID != "" {
		cfg.PreregisteredClient = &oauthex.ClientCredentials{ClientID: o.ClientID}
		if o.ClientSecret != "" {
			cfg.PreregisteredClient.ClientSecretAuth = &oauthex.ClientSecretAuth{ClientSecret: o.ClientSecret}
		}
	} else {
		cfg.DynamicClientRegistrationConfig = &auth.DynamicClientRegistrationConfig{Metadata: &oauthex.ClientRegistrationMetadata{
			RedirectURIs:            []string{redirect},
			ClientName:              "coder-nvim",
			GrantTypes:              []string{"authorization_code", "refresh_token"},
			ResponseTypes:           []string{"code"},
			TokenEndpointAuthMethod: "none",
		}}
	}
	handler, err := auth.NewAuthorizationCodeHandler(cfg)
	if err != nil {
		_ = srv.Close()
		return nil, nil, fmt.Errorf("OAuth for %s: %w", o.Server, err)
	}
	return handler, func() { _ = srv.Close() }, nil
}
