-- The editor side of the agent's language-server feedback (:help
-- coder-lsp). The host asks; this module loads files the way the user
-- would (so FileType autocmds attach their servers), reads diagnostics and
-- runs LSP requests. Nothing here waits on Neovim's main loop: a call
-- either answers at once (a JSON string) or returns nil and later sends
-- coder_lua_done(id, json) to the host. Go decides what the model sees.
--
-- This module holds the entry points the host calls and what both kinds
-- of call share: finding and loading buffers, their clients and
-- diagnostics, answering later. coder.lspwait waits for the servers after
-- a change; coder.lspquery asks them questions.
local M = {}

local api = vim.api
local uv = vim.uv or vim.loop

-- pending: id -> function that ends the call early (cancel).
local pending = {}

-- Severities sent along: errors and warnings only.
local ERROR, WARN = 1, 2
-- Caps: a server flooding diagnostics must not flood the host.
local MAX_PER_BUF = 200
local MAX_ALL = 500

local function clients(buf)
  if vim.lsp.get_clients then
    return vim.lsp.get_clients({ bufnr = buf })
  end
  local out = {}
  for _, c in pairs(vim.lsp.buf_get_clients(buf)) do
    table.insert(out, c)
  end
  return out
end

local function realpath(p)
  return uv.fs_realpath(p) or p
end

local function under(name, root)
  if root == nil or root == '' then
    return false
  end
  local sep = name:sub(#root + 1, #root + 1)
  -- Windows names take either separator.
  return name:sub(1, #root) == root and (sep == '/' or (sep == '\\' and vim.fn.has('win32') == 1))
end

-- loaded_buffer returns the loaded buffer of file abs, or nil.
local function loaded_buffer(abs)
  local want = realpath(abs)
  for _, b in ipairs(api.nvim_list_bufs()) do
    if api.nvim_buf_is_loaded(b) and vim.bo[b].buftype == '' then
      local name = api.nvim_buf_get_name(b)
      if name ~= '' and (name == abs or realpath(name) == want) then
        return b
      end
    end
  end
  return nil
end

-- has_lsp: is a server attached to a loaded buffer inside root?
function M.has_lsp(root)
  for _, b in ipairs(api.nvim_list_bufs()) do
    if api.nvim_buf_is_loaded(b) and under(realpath(api.nvim_buf_get_name(b)), root) and #clients(b) > 0 then
      return true
    end
  end
  return false
end

-- open returns the buffer of abs, loading it hidden when it is not loaded
-- (bufadd + bufload: the user's autocmds run as for :edit), and a function
-- that puts things back as they were.
local function open(abs)
  local b = loaded_buffer(abs)
  if b then
    return b, function() end
  end
  local existed = vim.fn.bufexists(abs) == 1
  b = vim.fn.bufadd(abs)
  -- Loaded for the agent only: the host's reload of changed files
  -- leaves it alone (it holds the new text already).
  vim.b[b].coder_hidden = true
  pcall(vim.fn.bufload, b)
  return b, function()
    if not api.nvim_buf_is_valid(b) then
      return
    end
    vim.b[b].coder_hidden = nil
    if vim.bo[b].modified or #vim.fn.win_findbuf(b) > 0 then
      return
    end
    if existed then
      pcall(api.nvim_buf_delete, b, { unload = true })
    else
      pcall(api.nvim_buf_delete, b, {})
    end
  end
end

local function lines_of(buf)
  local cache
  return function(lnum)
    if not cache then
      cache = api.nvim_buf_get_lines(buf, 0, -1, false)
    end
    return cache[lnum + 1] or ''
  end
end

-- collect returns buf's errors, then its warnings, at most max.
local function collect(buf, path, max)
  local out = {}
  local line = lines_of(buf)
  for _, sev in ipairs({ ERROR, WARN }) do
    local ok, diags = pcall(vim.diagnostic.get, buf, { severity = sev })
    for _, d in ipairs(ok and diags or {}) do
      if #out >= max then
        return out
      end
      table.insert(out, {
        path = path,
        line = d.lnum + 1,
        col = d.col + 1,
        severity = d.severity,
        source = d.source or '',
        message = tostring(d.message or ''),
        text = line(d.lnum),
      })
    end
  end
  return out
end

-- done sends the answer of a call that waited.
local function done(id, payload)
  pending[id] = nil
  local json = vim.json.encode(payload)
  local chan = require('coder.host').state.chan
  if chan then
    pcall(vim.rpcnotify, chan, 'coder_lua_done', id, json)
  end
end

-- snapshot returns the diagnostics of the files' loaded buffers now,
-- before the host changes them.
function M.snapshot(paths)
  local out = {}
  for _, p in ipairs(paths) do
    local b = loaded_buffer(p)
    if b then
      vim.list_extend(out, collect(b, p, MAX_PER_BUF * 5))
    end
  end
  return vim.json.encode(out)
end

-- Shared with coder.lspwait and coder.lspquery.
M.pending, M.MAX_PER_BUF, M.MAX_ALL = pending, MAX_PER_BUF, MAX_ALL
M.clients, M.realpath, M.under, M.loaded_buffer = clients, realpath, under, loaded_buffer
M.open, M.collect, M.done = open, collect, done

-- The halves' entry points, called by the host.
function M.reloaded(buf)
  -- Every reload comes here; no wait runs before coder.lspwait is loaded.
  if package.loaded['coder.lspwait'] then
    require('coder.lspwait').reloaded(buf)
  end
end

function M.diagnostics(id, paths, settle_ms)
  return require('coder.lspwait').diagnostics(id, paths, settle_ms)
end

function M.query(id, root, q)
  return require('coder.lspquery').query(id, root, q)
end

-- cancel ends a call the host stopped waiting for.
function M.cancel(id)
  local f = pending[id]
  pending[id] = nil
  if f then
    f()
  end
end

return M
