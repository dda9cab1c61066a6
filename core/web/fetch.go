// Package web is the agent's reading of the web, done by the host (not in
// the sandbox): web_fetch gets one http(s) page as Markdown or text,
// web_search asks the search backend the user configured. A fetch carries
// no cookie, credential or proxy of the user's, reaches no loopback,
// private or link-local address (checked on the address connected to),
// follows redirects only within the host that was approved, and is cut to
// size; what it returns is marked as web content, data and never
// instructions.
package web

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/JohannesKaufmann/html-to-markdown/v2/converter"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/base"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/commonmark"
)

// Limits of one fetch.
const (
	MaxBody  = 5 << 20          // bytes read of a response; the rest is cut
	Timeout  = 20 * time.Second // the whole fetch, redirects included
	CacheTTL = 15 * time.Minute // a URL fetched again within it is served from memory
	// maxRedirects within the approved host.
	maxRedirects = 10
)

// Page is what a fetch got.
type Page struct {
	URL     string // as asked
	Final   string // after redirects within its host
	Type    string // the media type
	Text    string // Markdown for HTML, the body as it is for text and JSON
	Size    int    // bytes read
	Cut     bool   // the body was longer than MaxBody: read up to there
	Fetched time.Time
	Elapsed time.Duration
	Cached  bool // served from the cache
}

// RedirectError is a redirect to another host: a fetch from there needs
// its own approval, so it is not followed.
type RedirectError struct{ To string }

func (e *RedirectError) Error() string {
	return fmt.Sprintf("the server redirected to %s, another host: call web_fetch with that URL to follow it (the user approves each host)", e.To)
}

// Fetcher fetches pages and keeps them for CacheTTL.
type Fetcher struct {
	client    *http.Client
	now       func() time.Time
	userAgent string

	mu    sync.Mutex
	cache map[string]Page
}

// NewFetcher returns a fetcher; allowPrivate (the user's own
// web.allow_private) lets it reach loopback and private addresses.
func NewFetcher(version string, allowPrivate bool, now func() time.Time) *Fetcher {
	if now == nil {
		now = time.Now
	}
	dialer := &net.Dialer{Timeout: 10 * time.Second, Control: dialControl(allowPrivate)}
	tr := &http.Transport{
		// No proxy from the environment: it could see or route what
		// the user's own requests carry, and hides where a fetch goes.
		Proxy:                 nil,
		DialContext:           dialer.DialContext,
		TLSHandshakeTimeout:   10 * time.Second,
		ResponseHeaderTimeout: Timeout,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          4,
		IdleConnTimeout:       30 * time.Second,
	}
	client := &http.Client{
		Transport: tr,
		// No cookie jar: nothing is kept between fetches or sent.
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) >= maxRedirects {
				return fmt.Errorf("more than %d redirects", maxRedirects)
			}
			if req.URL.Scheme != "http" && req.URL.Scheme != "https" {
				return fmt.Errorf("redirect to a %s: URL refused", req.URL.Scheme)
			}
			if !strings.EqualFold(req.URL.Hostname(), via[0].URL.Hostname()) {
				return &RedirectError{To: req.URL.String()}
			}
			req.Header.Del("Authorization")
			req.Header.Del("Cookie")
			return nil
		},
	}
	return &Fetcher{client: client, now: now, userAgent: "coder-nvim/" + version + " (web_fetch; +https://github.com/coder-nvim/coder-nvim)", cache: map[string]Page{}}
}

// ParseURL checks a URL the model asked for: http or https, a host, no
// user name or password in it.
func ParseURL(raw string) (*url.URL, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return nil, fmt.Errorf("not a URL: %v", err)
	}
	switch {
	case u.Scheme != "http" && u.Scheme != "https":
		return nil, fmt.Errorf("only http and https URLs are fetched, not %q", raw)
	case u.Hostname() == "":
		return nil, fmt.Errorf("no host in %q", raw)
	case u.User != nil:
		return nil, errors.New("a URL with a user name or password is not fetched: credentials never go with a fetch")
	}
	u.Fragment = ""
	return u, nil
}

// Fetch gets u (parsed by ParseURL), or its copy from the cache.
func (f *Fetcher) Fetch(ctx context.Context, u *url.URL) (Page, error) {
	key := u.String()
	if p, ok := f.cached(key); ok {
		return p, nil
	}
	start := f.now()
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, key, nil)
	if err != nil {
		return Page{}, err
	}
	req.Header.Set("User-Agent", f.userAgent)
	req.Header.Set("Accept", "text/html, text/markdown, text/plain, application/json;q=0.9, */*;q=0.1")
	resp, err := f.client.Do(req)
	if err != nil {
		var re *RedirectError
		if errors.As(err, &re) {
			return Page{}, re
		}
		if errors.Is(err, errPrivate) {
			return Page{}, fmt.Errorf("refused: %s resolves to an address a fetch never reaches (loopback, private, link-local or metadata); the user's own config may set web.allow_private", u.Hostname())
		}
		if errors.Is(err, context.DeadlineExceeded) {
			return Page{}, fmt.Errorf("no answer within %s", Timeout)
		}
		return Page{}, err
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return Page{}, fmt.Errorf("HTTP %s", resp.Status)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, MaxBody+1))
	if err != nil && len(body) == 0 {
		return Page{}, fmt.Errorf("reading the body: %w", err)
	}
	p := Page{URL: key, Final: resp.Request.URL.String(), Size: len(body), Fetched: start}
	if len(body) > MaxBody {
		body, p.Cut, p.Size = body[:MaxBody], true, MaxBody
	}
	p.Type = mediaType(resp.Header.Get("Content-Type"), body)
	if p.Text, err = toText(p.Type, body); err != nil {
		return Page{}, err
	}
	p.Elapsed = f.now().Sub(start)
	f.mu.Lock()
	f.cache[key] = p
	f.mu.Unlock()
	return p, nil
}

// cached is key's page when it was fetched within CacheTTL.
func (f *Fetcher) cached(key string) (Page, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	now := f.now()
	for k, p := range f.cache { // old pages go: the cache stays small
		if now.Sub(p.Fetched) >= CacheTTL {
			delete(f.cache, k)
		}
	}
	p, ok := f.cache[key]
	p.Cached = ok
	return p, ok
}

// mediaType is the response's media type, sniffed when it names none.
func mediaType(header string, body []byte) string {
	if header == "" {
		header = http.DetectContentType(body)
	}
	t, _, err := mime.ParseMediaType(header)
	if err != nil {
		return strings.ToLower(strings.TrimSpace(header))
	}
	return t
}

// toText is body as the model gets it: HTML as Markdown, text and JSON
// as they are; any other type is refused by name.
func toText(typ string, body []byte) (string, error) {
	switch {
	case typ == "text/html" || typ == "application/xhtml+xml":
		md, err := newConverter().ConvertString(string(body))
		if err != nil {
			return "", fmt.Errorf("converting the HTML: %w", err)
		}
		return md, nil
	case strings.HasPrefix(typ, "text/") || typ == "application/json" || strings.HasSuffix(typ, "+json") ||
		typ == "application/xml" || strings.HasSuffix(typ, "+xml") || typ == "application/javascript":
		if !utf8.Valid(body) {
			body = bytes.ToValidUTF8(body, []byte("\uFFFD"))
		}
		return string(body), nil
	}
	return "", fmt.Errorf("the page is %s, not text, HTML or JSON: not fetched", typ)
}

// newConverter is html-to-markdown's converter with navigation, forms
// and other page furniture removed besides what its base plugin drops
// (scripts, styles, the head).
func newConverter() *converter.Converter {
	conv := converter.NewConverter(converter.WithPlugins(base.NewBasePlugin(), commonmark.NewCommonmarkPlugin()))
	for _, tag := range []string{"nav", "footer", "aside", "form", "button", "select", "svg", "canvas", "template", "dialog"} {
		conv.Register.TagType(tag, converter.TagTypeRemove, converter.PriorityStandard)
	}
	return conv
}
