package event

// Elicitation, on an ApprovalRequested, makes the request an MCP
// server's question to the user (elicitation/create): a form of flat
// fields, or a URL to open once the user agrees. It is answered through
// Session.Answer with accept (and the values), decline or cancel; the
// model never sees the request nor answers it.
type Elicitation struct {
	Server  string `json:"server" msgpack:"server"`
	Message string `json:"message" msgpack:"message"`
	// Mode is ElicitForm or ElicitURL.
	Mode   string        `json:"mode" msgpack:"mode"`
	URL    string        `json:"url,omitempty" msgpack:"url,omitempty"`
	Fields []ElicitField `json:"fields,omitempty" msgpack:"fields,omitempty"`
}

// Elicitation modes.
const (
	ElicitForm = "form"
	ElicitURL  = "url"
)

// ElicitField is one property of a form's schema.
type ElicitField struct {
	Name        string `json:"name" msgpack:"name"`
	Title       string `json:"title,omitempty" msgpack:"title,omitempty"`
	Description string `json:"description,omitempty" msgpack:"description,omitempty"`
	// Type is string, number, integer or boolean; a string with Enum is
	// a choice among Enum (shown as EnumNames when given).
	Type      string   `json:"type" msgpack:"type"`
	Enum      []string `json:"enum,omitempty" msgpack:"enum,omitempty"`
	EnumNames []string `json:"enum_names,omitempty" msgpack:"enum_names,omitempty"`
	Required  bool     `json:"required,omitempty" msgpack:"required,omitempty"`
	// Default is the schema's default as text ("" when none).
	Default   string   `json:"default,omitempty" msgpack:"default,omitempty"`
	Format    string   `json:"format,omitempty" msgpack:"format,omitempty"` // email, uri, date, date-time
	MinLength *int     `json:"min_length,omitempty" msgpack:"min_length,omitempty"`
	MaxLength *int     `json:"max_length,omitempty" msgpack:"max_length,omitempty"`
	Minimum   *float64 `json:"minimum,omitempty" msgpack:"minimum,omitempty"`
	Maximum   *float64 `json:"maximum,omitempty" msgpack:"maximum,omitempty"`
}

// OpenURL asks the front end to open Text (an http(s) address) with the
// user's opener (vim.ui.open in Neovim; printed where there is none):
// the sign-in page of an MCP server the user asked to log in to
// (/mcp login). Detail says what for.
const OpenURL Kind = "open_url"
