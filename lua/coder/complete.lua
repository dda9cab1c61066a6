-- Completion in the chat input, through 'omnifunc' (<C-x><C-o> on every
-- Neovim, and completion plugins that read omnifunc): `@` workspace paths
-- (fuzzy, from the host's file listing), `#` mention names, `/` commands
-- at the start, `/model ` model names. Paths and models come from the
-- host asynchronously: the omnifunc returns what is ready (answers kept
-- per query, or earlier answers filtered) and asks the host; when the
-- answer comes and the user is still at that word, the menu is shown
-- again with it. Neovim never waits for the host.
local M = {}

local api = vim.api

local st = {
  next_id = 0,
  kind = nil, -- what findstart saw: 'path', 'mention', 'command', 'model'
  col = 0, -- 0-based byte column where the completed word starts
  cache = { path = {}, model = {} }, -- query -> candidate strings
  pending = {}, -- id -> { kind, query, buf, col, waiters, menu (the omnifunc asked) }
}
M.state = st

-- context returns the kind of word before the cursor, its start column
-- (0-based bytes) and the query. line: the text before the cursor;
-- first: the cursor is on the input's first line.
function M.context(line, first)
  if first then
    local q = line:match('^%s*/model%s+(%S*)$')
    if q then
      return 'model', #line - #q, q
    end
    local c = line:match('^%s*/(%S*)$')
    if c then
      return 'command', #line - #c - 1, c
    end
  end
  local s = #line
  while s > 0 and not line:sub(s, s):match('%s') do
    s = s - 1
  end
  local word = line:sub(s + 1)
  local ch = word:sub(1, 1)
  if ch == '@' then
    return 'path', s, word:sub(2)
  end
  if ch == '#' and word:match('^#[%w_:]*$') then
    return 'mention', s, word:sub(2)
  end
  return nil
end

-- subsequence reports whether every character of q is in s, in order
-- (case-insensitive unless q has capitals).
local function subsequence(s, q)
  if q == '' then
    return true
  end
  if q:lower() == q then
    s = s:lower()
  end
  local i = 1
  for c in q:gmatch('.') do
    i = s:find(c, i, true)
    if not i then
      return false
    end
    i = i + 1
  end
  return true
end

-- ready returns the candidates known for (kind, query): the host's answer
-- for the query, else the answer for the longest shorter query filtered.
local function ready(kind, query)
  local cache = st.cache[kind]
  if cache[query] then
    return cache[query], true
  end
  for n = #query - 1, 0, -1 do
    local prev = cache[query:sub(1, n)]
    if prev then
      local out = {}
      for _, c in ipairs(prev) do
        if subsequence(c, query) then
          table.insert(out, c)
        end
      end
      return out, false
    end
  end
  return {}, false
end

-- ask requests candidates from the host unless a request for them runs,
-- and reports whether an answer will come (not without a host).
-- on_answer(list) is called with the answer (completion plugins); without
-- it the omnifunc asked, and the answer is shown in Neovim's menu.
local function ask(kind, query, on_answer)
  for _, p in pairs(st.pending) do
    if p.kind == kind and p.query == query then
      if on_answer then
        table.insert(p.waiters, on_answer)
      else
        p.menu, p.col = true, st.col
      end
      return true
    end
  end
  local host = require('coder.host')
  if not host.running() then
    return false
  end
  st.next_id = st.next_id + 1
  st.pending[st.next_id] = {
    kind = kind, query = query, buf = api.nvim_get_current_buf(), col = st.col, waiters = { on_answer },
    menu = on_answer == nil,
  }
  host.notify('coder_complete', st.next_id, kind, query)
  return true
end

local function path_items(list)
  local out = {}
  for _, p in ipairs(list) do
    local menu = p:sub(-1) == '/' and '[dir]' or '[file]'
    if p:match('^[%w_-]+:%a[%w+.-]*:') then
      menu = '[mcp]' -- server:uri, an MCP resource
    end
    table.insert(out, { word = '@' .. p, abbr = p, menu = menu, icase = 1 })
  end
  return out
end

local function mention_items(query)
  local out = {}
  for _, n in ipairs(require('coder.context').names) do
    if vim.startswith(n[1], query) then
      table.insert(out, { word = '#' .. n[1], menu = n[2] })
    end
  end
  return out
end

local function command_items(query)
  local host = require('coder.host')
  local help = host.state.command_help or {}
  local out = {}
  for _, name in ipairs(host.state.commands or {}) do
    if vim.startswith(name, query) then
      table.insert(out, { word = '/' .. name, menu = help[name] or '' })
    end
  end
  return out
end

local function model_items(list)
  local out = {}
  for _, m in ipairs(list) do
    table.insert(out, { word = m, menu = '[model]' })
  end
  return out
end

-- items returns the completion items ready now for kind and query, and
-- asks the host for what it alone knows; asked: an answer will follow
-- (on_answer is then called with it).
function M.items(kind, query, on_answer)
  if kind == 'mention' then
    return mention_items(query)
  elseif kind == 'command' then
    return command_items(query)
  elseif kind == 'path' or kind == 'model' then
    local list, exact = ready(kind, query)
    local asked = not exact and ask(kind, query, on_answer)
    return kind == 'path' and path_items(list) or model_items(list), asked
  end
  return {}
end

-- omnifunc is the input buffer's 'omnifunc'.
function M.omnifunc(findstart, base)
  if findstart == 1 then
    local row, col = unpack(api.nvim_win_get_cursor(0))
    local line = api.nvim_get_current_line():sub(1, col)
    local kind, start = M.context(line, row == 1)
    st.kind, st.col = kind, start or 0
    if not kind then
      return -3 -- not a word this completes: leave quietly
    end
    return start
  end
  local kind = st.kind
  if kind == 'model' then
    return (M.items(kind, base))
  end
  -- The word starts with its sigil: @, # or /.
  return (M.items(kind, base:sub(2)))
end

-- answer takes the host's answer to request o.id. If the user is still
-- typing that word, the menu shows the answer.
function M.answer(o)
  local p = st.pending[o.id]
  st.pending[o.id] = nil
  if not p then
    return
  end
  local list = o.items or {}
  if vim.tbl_count(st.cache[p.kind]) > 200 then
    st.cache[p.kind] = {}
  end
  st.cache[p.kind][p.query] = list
  for _, w in ipairs(p.waiters) do
    pcall(w, p.kind == 'path' and path_items(list) or model_items(list))
  end
  if not p.menu then
    -- Only a completion plugin asked: its menu shows the answer, and
    -- Neovim's own completion would insert a single match behind it.
    return
  end
  -- After the host's batch is applied: the menu belongs to the main loop.
  vim.schedule(function()
    if api.nvim_get_current_buf() ~= p.buf or not api.nvim_get_mode().mode:match('^i') then
      return
    end
    local row, col = unpack(api.nvim_win_get_cursor(0))
    local kind, start, query = M.context(api.nvim_get_current_line():sub(1, col), row == 1)
    if kind ~= p.kind or start ~= p.col then
      return
    end
    local items = M.items(kind, query)
    if #items > 0 then
      pcall(vim.fn.complete, start + 1, items)
    end
  end)
end

-- forget drops the kept answers (a new listing may differ).
function M.forget()
  st.cache = { path = {}, model = {} }
end

-- setup_buffer gives the input buffer its omnifunc, and registers the
-- nvim-cmp and blink.cmp sources when those plugins are installed, now or
-- by the time Insert mode is entered there.
function M.setup_buffer(buf)
  vim.bo[buf].omnifunc = "v:lua.require'coder.complete'.omnifunc"
  require('coder.cmp').register()
  api.nvim_create_autocmd('InsertEnter', {
    buffer = buf,
    callback = function()
      require('coder.cmp').register()
    end,
  })
end

return M
