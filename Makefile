GO      ?= go
VERSION := $(shell cat VERSION)
LDFLAGS := -s -w -X main.version=$(VERSION)

.PHONY: build test bench run deps vet

build:
	$(GO) build -trimpath -ldflags '$(LDFLAGS)' -o bin/coder-nvim ./cmd/coder-nvim

# deps installs what a fresh Debian machine lacks (git, neovim) when it can.
deps:
	@sh scripts/deps.sh

vet:
	@test -z "$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))" || { gofmt -l .; echo "gofmt: files above need formatting"; exit 1; }
	$(GO) vet ./...

# test runs every test: Go with -race, including the headless-Neovim tests,
# which use the host built by `build`.
test: deps build vet
	CODER_NVIM_BIN=$(CURDIR)/bin/coder-nvim $(GO) test -race -count=1 ./...

bench: deps build
	CODER_NVIM_BIN=$(CURDIR)/bin/coder-nvim $(GO) test -run '^$$' -bench . -benchmem -count=1 ./...

# run opens Neovim with the plugin loaded from this checkout.
run: deps build
	nvim --cmd 'set rtp^=$(CURDIR)' -c 'Coder open'
