-- The agent's questions to the language servers (coder.lsp's query):
-- definitions, references, hover, document and workspace symbols, and the
-- diagnostics of a file or of the workspace as they stand.
local M = {}

local api = vim.api
local lsp = require('coder.lsp')
local pending, MAX_ALL = lsp.pending, lsp.MAX_ALL
local clients, realpath, under, loaded_buffer = lsp.clients, lsp.realpath, lsp.under, lsp.loaded_buffer
local open, collect, done = lsp.open, lsp.collect, lsp.done

local function all_clients()
  if vim.lsp.get_clients then
    return vim.lsp.get_clients()
  end
  return vim.lsp.get_active_clients()
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

return M
