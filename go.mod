module github.com/coder-nvim/coder-nvim

go 1.26

require (
	github.com/aymanbagabas/go-udiff v0.4.1
	github.com/bmatcuk/doublestar/v4 v4.10.4
	github.com/coder/acp-go-sdk v0.13.0
	github.com/google/jsonschema-go v0.4.3
	github.com/google/renameio/v2 v2.0.2
	github.com/google/uuid v1.6.0
	github.com/neovim/go-client v1.2.1
	github.com/sashabaranov/go-openai v1.43.0
	mvdan.cc/sh/v3 v3.13.1
)
