module github.com/coder-nvim/coder-nvim

go 1.26

require (
	github.com/JohannesKaufmann/html-to-markdown/v2 v2.5.2
	github.com/aymanbagabas/go-udiff v0.4.1
	github.com/bmatcuk/doublestar/v4 v4.10.4
	github.com/coder/acp-go-sdk v0.13.0
	github.com/google/jsonschema-go v0.4.3
	github.com/google/renameio/v2 v2.0.2
	github.com/google/uuid v1.6.0
	github.com/modelcontextprotocol/go-sdk v1.8.0
	github.com/neovim/go-client v1.2.1
	github.com/sashabaranov/go-openai v1.43.0
	golang.org/x/oauth2 v0.35.0
	golang.org/x/sys v0.45.0
	mvdan.cc/sh/v3 v3.13.1
)

require (
	github.com/JohannesKaufmann/dom v0.3.1 // indirect
	github.com/segmentio/asm v1.1.3 // indirect
	github.com/segmentio/encoding v0.5.4 // indirect
	github.com/yosida95/uritemplate/v3 v3.0.2 // indirect
	golang.org/x/net v0.55.0 // indirect
	golang.org/x/sync v0.20.0 // indirect
	golang.org/x/time v0.15.0 // indirect
)
