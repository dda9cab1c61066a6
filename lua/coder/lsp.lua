-- The editor side of the agent's language-server feedback (:help
-- coder-lsp). The host asks; this module loads files the way the user
-- would (so FileType autocmds attach their servers), reads diagnostics and
-- runs LSP requests. Nothing here waits on Neovim's main loop: a call
-- either answers at once (a JSON string) or returns nil and later sends
-- coder_lua_done(id, json) to the host. Go decides what the model sees.
local M = {}

local api = vim.api
local uv = vim.uv or vim.loop

local pending = {} -- id -> function that ends the call early (cancel)

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

-- starting_or_attached returns the clients attached to buf, including
-- those still starting (a FileType autocmd that just started a server for
-- a buffer loaded hidden): their first publish is waited for too.
local function starting_or_attached(buf)
  if vim.fn.has('nvim-0.10') == 1 then
    local ok, cls = pcall(vim.lsp.get_clients, { bufnr = buf, _uninitialized = true })
    if ok then
      return cls
    end
    return clients(buf)
  end
  -- Older versions list only initialized clients; buf_is_attached and
  -- get_client_by_id know the others. Client ids count up from 1.
  local out, top = {}, 0
  for _, c in ipairs(vim.lsp.get_active_clients()) do
    top = math.max(top, c.id)
  end
  for id = 1, top + 16 do
    local c = vim.lsp.get_client_by_id(id)
    if c and vim.lsp.buf_is_attached(buf, id) then
      table.insert(out, c)
    end
  end
  return out
end

local function all_clients()
  if vim.lsp.get_clients then
    return vim.lsp.get_clients()
  end
  return vim.lsp.get_active_clients()
end

local function realpath(p)
  return uv.fs_realpath(p) or p
end

local function under(name, root)
  return root ~= nil and root ~= '' and name:sub(1, #root + 1) == root .. '/'
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

-- Publishes ------------------------------------------------------------------

-- listeners are called (client_id, file) after a server's diagnostics for
-- a file were handled; by waiting call id.
local listeners = {}
-- waits are the targets of the waiting calls, by id: a reload of one of
-- their buffers makes them wait for the publish that follows it.
local waits = {}

-- reloaded: buf's text was read again from disk, which clears its
-- diagnostics. What the servers said before no longer counts.
function M.reloaded(buf)
  for _, targets in pairs(waits) do
    for _, t in ipairs(targets) do
      if t.buf == buf then
        t.got, t.n = {}, 0
      end
    end
  end
end
local DIAG_METHODS = { 'textDocument/publishDiagnostics', 'textDocument/diagnostic' }
local ours = setmetatable({}, { __mode = 'k' }) -- our wrapper functions

-- hook wraps the client's diagnostics handlers once: the original (the
-- client's own, else the global one, looked up at each call) runs first,
-- then the listeners learn that this server has spoken for the file. A
-- DiagnosticChanged event cannot tell: Neovim also sends it when it
-- clears a reloaded buffer's diagnostics.
local function hook(client)
  if type(client.handlers) ~= 'table' then
    return
  end
  for _, m in ipairs(DIAG_METHODS) do
    local own = rawget(client.handlers, m)
    if not ours[own] then
      local function wrapper(err, result, ctx, config)
        local h = own or vim.lsp.handlers[m]
        local r1, r2
        if h then
          r1, r2 = h(err, result, ctx, config)
        end
        local file
        if m == DIAG_METHODS[1] and type(result) == 'table' and result.uri then
          file = vim.uri_to_fname(result.uri)
        elseif ctx and ctx.bufnr and api.nvim_buf_is_valid(ctx.bufnr) then
          file = api.nvim_buf_get_name(ctx.bufnr)
        end
        if file and next(listeners) then
          file = realpath(file)
          for _, f in pairs(listeners) do
            pcall(f, ctx and ctx.client_id, file)
          end
        end
        return r1, r2
      end
      ours[wrapper] = true
      client.handlers[m] = wrapper
    end
  end
end

-- diagnostics(id, paths, settle_ms): the files changed on disk. Reload
-- (or load hidden) their buffers, wait until every attached server has
-- published for the new text or settle_ms passed, answer with the errors
-- and warnings. Nothing attached: answers at once.
function M.diagnostics(id, paths, settle_ms)
  local targets = {}
  local need = 0
  for _, p in ipairs(paths) do
    local b = loaded_buffer(p)
    local restore = function() end
    if b and vim.bo[b].modified then
      b = nil -- the user's unsaved text: never reloaded
    elseif not b then
      b, restore = open(p)
    end
    if b then
      local ids = {}
      local n = 0
      for _, c in ipairs(starting_or_attached(b)) do
        hook(c)
        ids[c.id] = true
        n = n + 1
      end
      table.insert(targets, { buf = b, path = p, real = realpath(p), ids = ids, need = n, got = {}, n = 0, restore = restore })
      need = need + n
    else
      restore()
    end
  end
  local finished = false
  local timer
  local t_wait, t_published -- hrtime: reload done, last publish handled
  local function finish(timed_out)
    if finished then
      return nil
    end
    finished = true
    listeners[id] = nil
    waits[id] = nil
    pending[id] = nil
    if timer then
      timer:stop()
      timer:close()
    end
    local after, servers = {}, 0
    for _, t in ipairs(targets) do
      servers = servers + t.need
      if api.nvim_buf_is_valid(t.buf) then
        vim.list_extend(after, collect(t.buf, t.path, MAX_PER_BUF))
      end
      t.restore()
    end
    local waited = 0
    if t_wait then
      waited = math.floor(((t_published or uv.hrtime()) - t_wait) / 1000)
    end
    -- waited_us: the servers' time, for the host's measurements.
    return { after = after, servers = servers, timed_out = timed_out or false, waited_us = waited }
  end
  if need == 0 or settle_ms <= 0 then
    return vim.json.encode(finish(false))
  end
  local function all_spoke()
    for _, t in ipairs(targets) do
      if t.n < t.need then
        return false
      end
    end
    return true
  end
  local scheduled = false
  waits[id] = targets
  listeners[id] = function(client_id, file)
    for _, t in ipairs(targets) do
      if t.real == file and t.ids[client_id] and not t.got[client_id] then
        t.got[client_id] = true
        t.n = t.n + 1
      end
    end
    if all_spoke() and not scheduled then
      scheduled = true
      t_published = uv.hrtime()
      vim.schedule(function()
        scheduled = false
        -- A reload since (M.reloaded) cleared what was published: wait
        -- for the servers to speak for the text read again.
        if not all_spoke() then
          return
        end
        local r = finish(false)
        if r then
          done(id, r)
        end
      end)
    end
  end
  -- Reloaded after the hooks are in: the publish for the new text is
  -- the one waited for.
  t_wait = uv.hrtime()
  for _, t in ipairs(targets) do
    if not vim.b[t.buf].coder_hidden then
      require('coder.bridge').reload({ t.path })
    end
  end
  timer = uv.new_timer()
  timer:start(settle_ms, 0, vim.schedule_wrap(function()
    local r = finish(true)
    if r then
      done(id, r)
    end
  end))
  pending[id] = function()
    finish(true)
  end
  return nil
end

-- Positions ---------------------------------------------------------------

-- utf16 converts a 0-based byte column of line to UTF-16 code units.
local function utf16(line, col)
  local n, i = 0, 1
  while i <= col and i <= #line do
    local c = line:byte(i)
    local len = c < 0x80 and 1 or c < 0xE0 and 2 or c < 0xF0 and 3 or 4
    n = n + (len == 4 and 2 or 1)
    i = i + len
  end
  return n
end

local function bytecol(line, units)
  local n, i = 0, 1
  while i <= #line and n < units do
    local c = line:byte(i)
    local len = c < 0x80 and 1 or c < 0xE0 and 2 or c < 0xF0 and 3 or 4
    n = n + (len == 4 and 2 or 1)
    i = i + len
  end
  return i - 1
end

-- line_text is line lnum (0-based) of file path: from its loaded buffer,
-- else from disk (read no further than needed).
local function line_text(path, lnum)
  local b = loaded_buffer(path)
  if b then
    return api.nvim_buf_get_lines(b, lnum, lnum + 1, false)[1] or ''
  end
  local f = io.open(path, 'r')
  if not f then
    return ''
  end
  local i = 0
  for l in f:lines() do
    if i == lnum then
      f:close()
      return l
    end
    i = i + 1
  end
  f:close()
  return ''
end

local function location(uri, range, name, kind)
  local ok, path = pcall(vim.uri_to_fname, uri)
  if not ok then
    return nil
  end
  local text = line_text(path, range.start.line)
  return {
    path = path,
    line = range.start.line + 1,
    col = bytecol(text, range.start.character) + 1,
    text = text,
    name = name or '',
    kind = kind and (vim.lsp.protocol.SymbolKind[kind] or ''):lower() or '',
  }
end

local function add_locations(out, result)
  if type(result) ~= 'table' then
    return
  end
  if result.uri or result.targetUri then
    result = { result }
  end
  for _, l in ipairs(result) do
    local loc
    if l.targetUri then
      loc = location(l.targetUri, l.targetSelectionRange or l.targetRange)
    elseif l.uri and l.range then
      loc = location(l.uri, l.range)
    end
    table.insert(out, loc)
  end
end

local function add_symbols(out, result, uri)
  for _, s in ipairs(type(result) == 'table' and result or {}) do
    if #out >= MAX_ALL then
      return
    end
    if s.location then -- SymbolInformation
      table.insert(out, location(s.location.uri, s.location.range, s.name, s.kind))
    elseif s.selectionRange and uri then -- DocumentSymbol
      table.insert(out, location(uri, s.selectionRange, s.name, s.kind))
      add_symbols(out, s.children, uri)
    end
  end
end

local function hover_text(result)
  local c = type(result) == 'table' and result.contents or nil
  if type(c) == 'string' then
    return c
  end
  if type(c) ~= 'table' then
    return ''
  end
  if c.value then
    return c.value
  end
  local parts = {}
  for _, x in ipairs(c) do
    table.insert(parts, type(x) == 'string' and x or x.value or '')
  end
  return table.concat(parts, '\n')
end

local capability = {
  ['textDocument/definition'] = 'definitionProvider',
  ['textDocument/references'] = 'referencesProvider',
  ['textDocument/hover'] = 'hoverProvider',
  ['textDocument/documentSymbol'] = 'documentSymbolProvider',
  ['workspace/symbol'] = 'workspaceSymbolProvider',
}

local function supports(client, method)
  local caps = client.server_capabilities or {}
  local v = caps[capability[method]]
  return v ~= nil and v ~= false
end

local function request(client, method, params, handler, buf)
  if vim.fn.has('nvim-0.11') == 1 then
    return client:request(method, params, handler, buf)
  end
  return client.request(method, params, handler, buf)
end

-- ask sends method to the clients and calls on_all(results) once all
-- answered; it returns how many were asked.
local function ask(cls, method, params, buf, on_all)
  local asked, results, left = 0, {}, 0
  for _, c in ipairs(cls) do
    if supports(c, method) then
      asked = asked + 1
    end
  end
  left = asked
  for _, c in ipairs(cls) do
    if supports(c, method) then
      local ok = pcall(request, c, method, params, function(err, result)
        if not err then
          table.insert(results, result)
        end
        left = left - 1
        if left == 0 then
          on_all(results)
        end
      end, buf)
      if not ok then
        left = left - 1
      end
    end
  end
  if asked > 0 and left == 0 then
    on_all(results)
  end
  return asked
end

local methods = {
  definition = 'textDocument/definition',
  references = 'textDocument/references',
  hover = 'textDocument/hover',
  document_symbols = 'textDocument/documentSymbol',
}

-- query(id, root, q): one LSP question, q = {op, path, line, column,
-- symbol}. Answers {locations, hover, diagnostics, servers}, later.
function M.query(id, root, q)
  if q.op == 'diagnostics' and q.path and q.path ~= '' then
    local b = loaded_buffer(q.path)
    if not b then
      return vim.json.encode({ loaded = false, servers = 0 }) -- the host loads it (diagnostics)
    end
    return vim.json.encode({ loaded = true, servers = #clients(b), diagnostics = collect(b, q.path, MAX_ALL) })
  end
  if q.op == 'diagnostics' then
    local out = {}
    for _, b in ipairs(api.nvim_list_bufs()) do
      local name = api.nvim_buf_is_loaded(b) and realpath(api.nvim_buf_get_name(b)) or ''
      if under(name, root) and #out < MAX_ALL then
        vim.list_extend(out, collect(b, name, MAX_ALL - #out))
      end
    end
    return vim.json.encode({ diagnostics = out, servers = 1 })
  end
  local ended = false
  local restore = function() end
  local function answer(payload)
    if ended then
      return
    end
    ended = true
    restore()
    done(id, payload)
  end
  pending[id] = function()
    ended = true
    restore()
  end
  local asked
  if q.op == 'workspace_symbols' then
    local cls, seen = {}, {}
    for _, c in ipairs(all_clients()) do
      for b in pairs(c.attached_buffers or {}) do
        if not seen[c.id] and api.nvim_buf_is_loaded(b) and under(realpath(api.nvim_buf_get_name(b)), root) then
          seen[c.id] = true
          table.insert(cls, c)
        end
      end
    end
    asked = ask(cls, 'workspace/symbol', { query = q.symbol or '' }, nil, function(results)
      local out = {}
      for _, r in ipairs(results) do
        add_symbols(out, r)
      end
      answer({ locations = out, servers = #cls })
    end)
  else
    local method = methods[q.op]
    if not method then
      pending[id] = nil
      return vim.json.encode({ servers = 0 })
    end
    local buf
    buf, restore = open(q.path)
    local params = { textDocument = { uri = vim.uri_from_bufnr(buf) } }
    if q.line and q.line > 0 then
      local text = api.nvim_buf_get_lines(buf, q.line - 1, q.line, false)[1] or ''
      params.position = { line = q.line - 1, character = utf16(text, (q.column or 1) - 1) }
    end
    if q.op == 'references' then
      params.context = { includeDeclaration = true }
    end
    asked = ask(clients(buf), method, params, buf, function(results)
      local out, hover = {}, {}
      for _, r in ipairs(results) do
        if q.op == 'hover' then
          table.insert(hover, hover_text(r))
        elseif q.op == 'document_symbols' then
          add_symbols(out, r, params.textDocument.uri)
        else
          add_locations(out, r)
        end
      end
      answer({ locations = out, hover = table.concat(hover, '\n\n'), servers = #results > 0 and #results or 1 })
    end)
  end
  if asked == 0 and not ended then
    ended = true
    pending[id] = nil
    restore()
    return vim.json.encode({ servers = 0 })
  end
  return nil
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
