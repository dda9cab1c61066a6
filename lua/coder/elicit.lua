-- An MCP server's question to the user (elicitation), one float at a
-- time (filetype coder-elicit), later ones queued behind it. A form shows
-- one line per field: <CR> edits the field under the cursor (text and
-- numbers by vim.ui.input, a choice by vim.ui.select, a boolean toggles),
-- a accepts once every field is valid, d declines, q or <Esc> cancels. A
-- URL request shows the address whole; o opens it (vim.ui.open on 0.10+,
-- else the address is printed) and accepts. The host checks the values
-- again: an answer it refuses keeps the float open with its reason.
local M = {}

local api = vim.api
local chat = require('coder.ui')
local valid_win, valid_buf = chat.valid_win, chat.valid_buf

local cur = nil

local function label(f)
  local l = (f.title ~= nil and f.title ~= '') and f.title or f.name
  if f.required then
    l = l .. '*'
  end
  return l
end

local function one_line(s)
  return (tostring(s or ''):gsub('\n', ' ⏎ '))
end

-- check returns the field's value from what the user typed (text), or
-- nil and why not. It mirrors the host's check (core/mcp/elicit.go).
local function check(f, text)
  if text == nil or (text == '' and f.type ~= 'string') then
    if f.required then
      return nil, 'required'
    end
    return nil
  end
  if f.type == 'boolean' then
    if text == true or text == 'true' then
      return true
    elseif text == false or text == 'false' then
      return false
    end
    return nil, 'want true or false'
  end
  if f.type == 'number' or f.type == 'integer' then
    local n = tonumber(vim.trim(tostring(text)))
    if not n or n ~= n or n == math.huge or n == -math.huge then
      return nil, 'want a number'
    end
    if f.minimum and n < f.minimum then
      return nil, 'at least ' .. f.minimum
    end
    if f.maximum and n > f.maximum then
      return nil, 'at most ' .. f.maximum
    end
    if f.type == 'integer' and n ~= math.floor(n) then
      return nil, 'want a whole number'
    end
    return text
  end
  if #(f.enum or {}) > 0 then
    for _, o in ipairs(f.enum) do
      if o == text then
        return text
      end
    end
    return nil, 'want one of ' .. table.concat(f.enum, ', ')
  end
  local n = vim.fn.strchars(text)
  if f.min_length and n < f.min_length then
    return nil, 'at least ' .. f.min_length .. ' characters'
  end
  if f.max_length and n > f.max_length then
    return nil, 'at most ' .. f.max_length .. ' characters'
  end
  return text
end

local function hint(f)
  if #(f.enum or {}) > 0 then
    return '(' .. table.concat(f.enum, ', ') .. ')'
  end
  local h = f.type
  if f.minimum or f.maximum then
    h = h .. ' ' .. tostring(f.minimum or '') .. '–' .. tostring(f.maximum or '')
  end
  if f.format and f.format ~= '' then
    h = h .. ', ' .. f.format
  end
  return '(' .. h .. ')'
end

local function render()
  local e = cur.req.elicitation
  local lines = { 'MCP server ' .. one_line(e.server) .. ' asks:' }
  for _, l in ipairs(vim.split(e.message or '', '\n', { plain = true })) do
    table.insert(lines, '  ' .. l)
  end
  table.insert(lines, '')
  cur.rows = {}
  if e.mode == 'url' then
    table.insert(lines, 'open this address?')
    table.insert(lines, '  ' .. one_line(e.url))
    table.insert(lines, '')
    table.insert(lines, 'o open it and accept   d decline   q cancel')
  else
    local width = 4
    for _, f in ipairs(e.fields) do
      width = math.max(width, vim.fn.strdisplaywidth(label(f)))
    end
    for i, f in ipairs(e.fields) do
      local v = cur.values[f.name]
      local shown = v == nil and '' or one_line(tostring(v))
      local l = '  ' .. label(f) .. string.rep(' ', width - vim.fn.strdisplaywidth(label(f))) .. '  ' .. shown .. '  ' .. hint(f)
      if f.description and f.description ~= '' then
        l = l .. ' ' .. one_line(f.description)
      end
      table.insert(lines, l)
      cur.rows[#lines] = i
    end
    table.insert(lines, '')
    table.insert(lines, '<CR> edit   a accept   d decline   q cancel   (* required)')
  end
  if cur.error then
    table.insert(lines, '! ' .. one_line(cur.error))
  end
  return lines
end

local function refresh()
  if not cur or not valid_buf(cur.buf) then
    return
  end
  local lines = render()
  vim.bo[cur.buf].modifiable = true
  api.nvim_buf_set_lines(cur.buf, 0, -1, false, lines)
  vim.bo[cur.buf].modifiable = false
  local w = 20
  for _, l in ipairs(lines) do
    w = math.max(w, vim.fn.strdisplaywidth(l))
  end
  w = math.min(w + 1, math.max(20, vim.o.columns - 4))
  if valid_win(cur.win) then
    api.nvim_win_set_config(cur.win, {
      relative = 'editor', width = w, height = math.min(#lines, math.max(1, vim.o.lines - 4)),
      row = 1, col = math.max(0, math.floor((vim.o.columns - w) / 2)),
    })
  end
end

local function teardown()
  if not cur then
    return
  end
  local c = cur
  cur = nil
  require('coder.pending').close_float(c)
end

local pending

-- answer sends decision (accept, decline or cancel) for the question
-- shown now; an accepted form goes only when every field is valid.
function M.answer(decision)
  if not cur then
    return false
  end
  local req = cur.req
  local values = vim.empty_dict()
  if decision == 'accept' and req.elicitation.mode ~= 'url' then
    local bad = {}
    for _, f in ipairs(req.elicitation.fields) do
      local v, err = check(f, cur.values[f.name])
      if err then
        table.insert(bad, label(f) .. ': ' .. err)
      elseif v ~= nil then
        values[f.name] = v
      end
    end
    if #bad > 0 then
      cur.error = table.concat(bad, '; ')
      refresh()
      return false
    end
  end
  local host = require('coder.host')
  if host.running() then
    local why, err = host.request('coder_answer_elicit', req.id, decision, values)
    if err then
      why = tostring(err)
    end
    if decision == 'accept' and why and why ~= '' and why ~= vim.NIL then
      cur.error = why
      refresh()
      return false
    end
  end
  teardown()
  pending.next()
  return true
end

-- set gives field name the text typed for it (what editing does).
function M.set(name, text)
  if not cur then
    return false
  end
  for _, f in ipairs(cur.req.elicitation.fields or {}) do
    if f.name == name then
      local _, err = check(f, text)
      cur.values[name] = text
      cur.error = err and (label(f) .. ': ' .. err) or nil
      refresh()
      return err == nil
    end
  end
  return false
end

-- edit changes the field under the cursor.
local function edit()
  if not cur then
    return
  end
  local i = cur.rows[api.nvim_win_get_cursor(0)[1]]
  local f = i and cur.req.elicitation.fields[i]
  if not f then
    return
  end
  local id = cur.req.id
  local function done(v)
    if v ~= nil and cur and cur.req.id == id then
      M.set(f.name, v)
    end
  end
  if f.type == 'boolean' then
    done(not (cur.values[f.name] == true))
  elseif #(f.enum or {}) > 0 then
    local names = f.enum_names or {}
    vim.ui.select(f.enum, {
      prompt = label(f),
      format_item = function(o)
        for k, e in ipairs(f.enum) do
          if e == o and names[k] and names[k] ~= '' then
            return names[k]
          end
        end
        return o
      end,
    }, done)
  else
    local v = cur.values[f.name]
    vim.ui.input({ prompt = label(f) .. ': ', default = v ~= nil and tostring(v) or '' }, done)
  end
end

-- open hands an http(s) address to the user's opener (vim.ui.open on
-- 0.10+; else it is printed for them to open). what says what for.
function M.open(url, what)
  url = tostring(url or '')
  if not (url:match('^https?://')) then
    vim.notify('coder: not opening ' .. url .. ': not an http(s) address', vim.log.levels.WARN, { title = 'coder' })
    return
  end
  local label = (what and what ~= '') and (what .. ': ') or ''
  if vim.fn.has('nvim-0.10') == 1 then
    local ok, err = pcall(vim.ui.open, url)
    if ok then
      return
    end
    vim.notify('coder: could not open ' .. url .. ': ' .. tostring(err), vim.log.levels.WARN, { title = 'coder' })
  end
  vim.notify('coder: ' .. label .. 'open ' .. url, vim.log.levels.INFO, { title = 'coder' })
end

local function open_url()
  if not cur then
    return
  end
  M.open(cur.req.elicitation.url)
  M.answer('accept')
end

local function show(req)
  cur = { req = req, prev = api.nvim_get_current_win(), values = {} }
  for _, f in ipairs(req.elicitation.fields or {}) do
    if f.default ~= nil and f.default ~= '' then
      if f.type == 'boolean' then
        cur.values[f.name] = f.default == 'true'
      else
        cur.values[f.name] = f.default
      end
    end
  end
  local buf = api.nvim_create_buf(false, true)
  cur.buf = buf
  vim.bo[buf].bufhidden = 'wipe'
  local function bmap(lhs, fn, desc)
    vim.keymap.set('n', lhs, fn, { buffer = buf, nowait = true, silent = true, desc = 'coder: ' .. desc })
  end
  if req.elicitation.mode == 'url' then
    bmap('o', open_url, 'open the address and accept')
  else
    bmap('<CR>', edit, 'edit the field')
    bmap('a', function() M.answer('accept') end, 'accept')
  end
  bmap('d', function() M.answer('decline') end, 'decline')
  bmap('q', function() M.answer('cancel') end, 'cancel')
  bmap('<Esc>', function() M.answer('cancel') end, 'cancel')
  cur.win = api.nvim_open_win(buf, false, {
    relative = 'editor', row = 1, col = 1, width = 40, height = 1,
    border = 'rounded', style = 'minimal', focusable = true, zindex = 100,
  })
  vim.wo[cur.win].wrap = false
  vim.wo[cur.win].winhighlight = 'FloatBorder:CoderApprovalBorder'
  refresh()
  vim.bo[buf].filetype = 'coder-elicit'
  local first = next(cur.rows) and math.huge or nil
  for row in pairs(cur.rows) do
    first = math.min(first, row)
  end
  if first then
    api.nvim_win_set_cursor(cur.win, { first, 0 })
  end
  -- Closing the float answers like q: the server must not wait for good.
  local id, win = req.id, cur.win
  require('coder.pending').answer_on_close(win, function()
    return cur and cur.req.id == id
  end, function()
    M.answer('cancel')
  end)
  -- Keys typed ahead in another mode must never answer: the float takes
  -- the cursor only from Normal mode.
  local mode = api.nvim_get_mode()
  if mode.mode == 'n' and not mode.blocking then
    api.nvim_set_current_win(win)
  end
end

pending = require('coder.pending').new({
  shown = function()
    return cur and cur.req.id
  end,
  show = show,
  teardown = teardown,
})

-- push queues a question from the host; closed drops one the host
-- resolved on its own (interrupted turn); reset drops everything.
M.push, M.closed, M.reset = pending.push, pending.closed, pending.reset

-- current is the question shown now: id, float, values and the error
-- shown (for tests and statuslines).
function M.current()
  if not cur then
    return nil
  end
  return { id = cur.req.id, win = cur.win, buf = cur.buf, values = cur.values, error = cur.error, queued = pending.len() }
end

-- focus moves the cursor into the float.
function M.focus()
  return require('coder.pending').focus_float(cur)
end

return M
