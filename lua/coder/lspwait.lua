-- The wait after a change (coder.lsp's diagnostics): the files changed on
-- disk are reloaded, and the call answers once every attached server has
-- published diagnostics for the new text, or when the time is up.
local M = {}

local api = vim.api
local uv = vim.uv or vim.loop
local lsp = require('coder.lsp')
local pending, MAX_PER_BUF = lsp.pending, lsp.MAX_PER_BUF
local clients, realpath, loaded_buffer, open = lsp.clients, lsp.realpath, lsp.loaded_buffer, lsp.open
local collect, done = lsp.collect, lsp.done

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

return M
