module github.com/coder-nvim/coder-nvim

go 1.26.0

require (
	github.com/aymanbagabas/go-udiff v0.4.1 // indirect
	github.com/bmatcuk/doublestar/v4 v4.10.4 // indirect
	github.com/coder/acp-go-sdk v0.13.0 // indirect
	github.com/google/jsonschema-go v0.4.3 // indirect
	github.com/google/renameio/v2 v2.0.2 // indirect
	github.com/google/uuid v1.6.0 // indirect
	github.com/neovim/go-client v1.2.1 // indirect
	github.com/sashabaranov/go-openai v1.43.0 // indirect
	mvdan.cc/sh/v3 v3.14.1 // indirect
)
