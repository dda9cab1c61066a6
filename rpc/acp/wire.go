package acp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"

	sdk "github.com/coder/acp-go-sdk"
)

// maxMessage bounds one incoming line. The SDK's reader gives up (and
// closes the connection) above 10 MiB, so longer lines are answered here
// and never reach it.
const maxMessage = 8 << 20

// JSON-RPC error codes answered by the filter itself.
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
)

// syncWriter serialises whole messages onto the output, shared by the SDK
// connection and the input filter so their lines never interleave.
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

// writeError sends a JSON-RPC error response with the given id (null when
// the id is unknown).
func (s *syncWriter) writeError(id json.RawMessage, code int, msg string, data any) error {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	type rpcError struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
		Data    any    `json:"data,omitempty"`
	}
	b, err := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   rpcError        `json:"error"`
	}{"2.0", id, rpcError{code, msg, data}})
	if err != nil {
		return err
	}
	_, err = s.Write(append(b, '\n'))
	return err
}

// filterInput copies the JSON-RPC messages of in to dst, one line each,
// and answers every line that is not one itself: the SDK would only log
// it, and the client must get an error for a malformed request. It closes
// dst when in ends.
func filterInput(in io.Reader, dst *io.PipeWriter, out *syncWriter, log *slog.Logger) {
	r := bufio.NewReaderSize(in, 64<<10)
	var line []byte
	var big oversized // the ends of a line past the limit
	tooLong := false
	for {
		chunk, err := r.ReadSlice('\n')
		switch {
		case tooLong:
			big.addTail(chunk)
		case len(line)+len(chunk) > maxMessage:
			tooLong = true
			big.start(line)
			big.addTail(chunk)
			line = line[:0]
		default:
			line = append(line, chunk...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if tooLong {
			id := big.id()
			log.Warn("dropped an oversized message", "limit", maxMessage, "id", string(id))
			out.writeError(id, codeInvalidRequest, "Invalid request", map[string]any{"error": fmt.Sprintf(
				"message larger than %d MB (%d bytes); send large files as resource links, not embedded", maxMessage>>20, maxMessage)})
		} else if msg := bytes.TrimSpace(line); len(msg) > 0 {
			if id, code, reason := checkMessage(msg); code != 0 {
				log.Warn("rejected an incoming message", "reason", reason)
				text := "Invalid request"
				if code == codeParseError {
					text = "Parse error"
				}
				out.writeError(id, code, text, map[string]any{"error": reason})
			} else if norm, reqID, why := normalizeMCP(msg); why != "" {
				log.Warn("rejected session parameters", "reason", why)
				out.writeError(reqID, codeInvalidParams, "Invalid params", map[string]any{"error": why})
			} else if _, werr := dst.Write(append(route(norm), '\n')); werr != nil {
				return // the connection is gone
			}
		}
		line, tooLong = line[:0], false
		if err != nil {
			if !errors.Is(err, io.EOF) {
				log.Error("read input", "err", err)
			}
			dst.Close()
			return
		}
	}
}

// requestMethods are the agent's request methods, refused without an id.
var requestMethods = map[string]bool{
	sdk.AgentMethodInitialize:             true,
	sdk.AgentMethodAuthenticate:           true,
	sdk.AgentMethodSessionNew:             true,
	sdk.AgentMethodSessionLoad:            true,
	sdk.AgentMethodSessionResume:          true,
	sdk.AgentMethodSessionList:            true,
	sdk.AgentMethodSessionClose:           true,
	sdk.AgentMethodSessionPrompt:          true,
	sdk.AgentMethodSessionSetMode:         true,
	sdk.AgentMethodSessionSetConfigOption: true,
	methodSessionDelete:                   true,
}

// The pinned acp-go-sdk (v0.13.0) predates session/delete: its dispatcher
// answers "method not found" to every method it does not know but an
// extension method ("_…", handed to HandleExtensionMethod), and its
// InitializeResponse has no sessionCapabilities.delete to advertise it
// with. So the filter renames these two requests to extension methods of
// ours (delete.go serves them); the response keeps the request's id, so a
// client sees nothing of it. Drop this when the SDK knows session/delete.
const methodSessionDelete = "session/delete"

var routed = map[string]string{
	methodSessionDelete:       extSessionDelete,
	sdk.AgentMethodInitialize: extInitialize,
}

// route renames a routed request's method; any other message passes as
// it is.
func route(msg []byte) []byte {
	if !bytes.Contains(msg, []byte(`"`+methodSessionDelete+`"`)) && !bytes.Contains(msg, []byte(`"`+sdk.AgentMethodInitialize+`"`)) {
		return msg // the common case, without parsing a large prompt twice
	}
	var fields map[string]json.RawMessage
	if json.Unmarshal(msg, &fields) != nil {
		return msg
	}
	var method string
	if json.Unmarshal(fields["method"], &method) != nil || routed[method] == "" {
		return msg
	}
	fields["method"], _ = json.Marshal(routed[method])
	out, err := json.Marshal(fields)
	if err != nil {
		return msg
	}
	return out
}

// checkMessage reports whether msg is a JSON-RPC 2.0 request, notification
// or response. If not, it returns the error code, the reason and the id to
// answer with (nil when the message has none, or an invalid one).
func checkMessage(msg []byte) (id json.RawMessage, code int, reason string) {
	if !json.Valid(msg) {
		return nil, codeParseError, "the message is not valid JSON"
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(msg, &fields); err != nil || fields == nil {
		return nil, codeInvalidRequest, "the message must be a JSON object (batches are not supported)"
	}
	rawID, hasID := fields["id"]
	if hasID {
		switch c := firstByte(rawID); {
		case c == '"', c == '-', c >= '0' && c <= '9', bytes.Equal(rawID, []byte("null")):
			id = rawID
		default:
			return nil, codeInvalidRequest, "id must be a string, a number or null"
		}
	}
	var version string
	if err := json.Unmarshal(fields["jsonrpc"], &version); err != nil || version != "2.0" {
		return id, codeInvalidRequest, `jsonrpc must be "2.0"`
	}
	if rawMethod, ok := fields["method"]; ok {
		var method string
		if err := json.Unmarshal(rawMethod, &method); err != nil || method == "" {
			return id, codeInvalidRequest, "method must be a non-empty string"
		}
		if p, ok := fields["params"]; ok {
			if c := firstByte(p); c != '{' && c != '[' && !bytes.Equal(p, []byte("null")) {
				return id, codeInvalidRequest, "params must be an object"
			}
		}
		if !hasID && requestMethods[method] {
			// The SDK would run it as a notification, in line with
			// session/cancel and ahead of the responses to our own
			// requests: a prompt there could never be cancelled nor have
			// its permission requests answered.
			return nil, codeInvalidRequest, method + " is a request and needs an id"
		}
		return nil, 0, ""
	}
	_, hasResult := fields["result"]
	_, hasError := fields["error"]
	if hasID && (hasResult || hasError) {
		return nil, 0, "" // a response to one of our requests
	}
	return id, codeInvalidRequest, "the message has no method and is not a response"
}

func firstByte(b []byte) byte {
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return 0
	}
	return b[0]
}
