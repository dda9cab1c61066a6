-- The workspace-trust float: the host found a .coder/config.json it may
-- not apply whole (the user has not trusted this content of it) and sends
-- what it ignored. The user trusts it (the host records the trust and
-- reopens the session under it), stays restricted, or views the file
-- first. Lua only shows and sends the choice back.
local M = {}

local api = vim.api

-- declined: files the user chose to stay restricted with in this Neovim,
-- so a host restart does not ask again.
local declined = {}
local cur = nil

local function close()
  if cur and api.nvim_win_is_valid(cur.win) then
    api.nvim_win_close(cur.win, true)
  end
  if cur and cur.more and api.nvim_win_is_valid(cur.more) then
    api.nvim_win_close(cur.more, true)
  end
  pcall(api.nvim_del_augroup_by_name, 'coder_trust_float')
  cur = nil
end

local function choose(what)
  local req = cur and cur.req
  close()
  if not req then
    return
  end
  if what == 'trust' then
    -- The host trusts only the content this float showed (req.hash).
    local res, err = require('coder.host').request('coder_trust', req.hash or '')
    if err then
      vim.notify('coder: ' .. tostring(err), vim.log.levels.ERROR, { title = 'coder' })
    else
      vim.notify('coder: ' .. tostring(res), vim.log.levels.INFO, { title = 'coder' })
    end
  elseif what == 'view' then
    vim.cmd('tabnew ' .. vim.fn.fnameescape(req.file))
    vim.bo.readonly = true
    -- Back from viewing, the question stands.
    vim.keymap.set('n', 'q', function()
      vim.cmd('tabclose')
      M.show(req, true)
    end, { buffer = true, nowait = true, desc = 'coder: back to the trust question' })
  else
    declined[req.file] = true
    vim.notify('coder: staying restricted; trust later with :Coder trust or `coder-nvim trust`', vim.log.levels.INFO, { title = 'coder' })
  end
end

local KEYS = ' t trust it as shown · r stay restricted · v view the file'
local CONFIRM = ' Enter: trust it as shown · t back · r stay restricted'

-- rows counts the screen rows lines take wrapped at width.
local function rows(lines, width)
  local n = 0
  for _, l in ipairs(lines) do
    n = n + math.max(1, math.ceil(vim.fn.strdisplaywidth(l) / width))
  end
  return n
end

-- bottom is the last line of the float entirely on screen (a line taller
-- than the float counts once it is the top one).
local function bottom(c)
  local info = vim.fn.getwininfo(c.win)[1]
  local width = math.max(1, info.width - (info.textoff or 0))
  local used, last = 0, info.topline
  for i = info.topline, #c.lines do
    used = used + rows({ c.lines[i] }, width)
    if used > info.height and i > info.topline then
      break
    end
    last = i
  end
  return last, info
end

-- follow records how far the list has been on screen and keeps the
-- "N more lines" note on the float's bottom border while lines remain
-- below.
local function follow()
  local c = cur
  if not c or not api.nvim_win_is_valid(c.win) then
    return
  end
  local last, info = bottom(c)
  c.seen = math.max(c.seen or 0, last)
  local left = #c.lines - last
  if left <= 0 then
    if c.more and api.nvim_win_is_valid(c.more) then
      api.nvim_win_close(c.more, true)
    end
    c.more = nil
    return
  end
  local text = ' ' .. left .. ' more line' .. (left == 1 and '' or 's') .. ': scroll with j/k '
  if not (c.more and api.nvim_win_is_valid(c.more)) then
    local mbuf = api.nvim_create_buf(false, true)
    vim.bo[mbuf].bufhidden = 'wipe'
    c.more = api.nvim_open_win(mbuf, false, {
      relative = 'editor', row = info.winrow - 1 + info.height, col = info.wincol,
      width = math.min(#text, info.width), height = 1, style = 'minimal', focusable = false, zindex = 101,
    })
    vim.wo[c.more].winhighlight = 'Normal:CoderApprovalBorder'
  end
  local mbuf = api.nvim_win_get_buf(c.more)
  api.nvim_buf_set_lines(mbuf, 0, -1, false, { text })
  api.nvim_win_set_config(c.more, { relative = 'editor', row = info.winrow - 1 + info.height, col = info.wincol, width = math.min(#text, info.width) })
end

-- set_keys replaces the float's key line (the second: always in view,
-- however long the list under it).
local function set_keys(buf, line)
  vim.bo[buf].modifiable = true
  api.nvim_buf_set_lines(buf, 1, 2, false, { line })
  vim.bo[buf].modifiable = false
end

-- show opens the float for a trust request {file, ignored, root, hash}.
function M.show(req, force)
  M.last = req
  if declined[req.file] and not force then
    return
  end
  close()
  local lines = {
    ' ' .. vim.fn.fnamemodify(req.file, ':~:.') .. ' is not trusted.',
    KEYS,
    ' Only its narrowing settings apply; it also asks for:',
  }
  for _, item in ipairs(req.ignored or {}) do
    table.insert(lines, '   • ' .. (tostring(item):gsub('\n', ' ')))
  end
  local width = 20
  for _, l in ipairs(lines) do
    width = math.max(width, vim.fn.strdisplaywidth(l) + 1)
  end
  width = math.min(width, vim.o.columns - 4)
  local buf = api.nvim_create_buf(false, true)
  api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].modifiable = false
  vim.bo[buf].bufhidden = 'wipe'
  local win = api.nvim_open_win(buf, true, {
    relative = 'editor', row = 1, col = 1, width = width,
    height = math.max(1, math.min(rows(lines, width), vim.o.lines - 4)),
    border = 'rounded', style = 'minimal', zindex = 100,
  })
  vim.wo[win].wrap = true
  vim.wo[win].winhighlight = 'FloatBorder:CoderApprovalBorder'
  vim.bo[buf].filetype = 'coder-trust'
  cur = { win = win, req = req, lines = lines }
  -- The list may be longer than the float: what is below is announced,
  -- and trusting waits until every line has been on screen.
  local group = api.nvim_create_augroup('coder_trust_float', { clear = true })
  api.nvim_create_autocmd({ 'CursorMoved', 'WinScrolled', 'VimResized' }, { group = group, callback = function()
    vim.schedule(follow)
  end })
  follow()
  local function map(lhs, what)
    vim.keymap.set('n', lhs, function() choose(what) end, { buffer = buf, nowait = true })
  end
  -- t only asks, Enter then trusts: a key typed for another window as
  -- the float opened (t, then a motion's character) trusts nothing.
  vim.keymap.set('n', 't', function()
    follow()
    local left = #cur.lines - (cur.seen or 0)
    if left > 0 then
      vim.notify('coder: read the whole list before trusting it: ' .. left .. ' more line' .. (left == 1 and '' or 's')
        .. ' below; scroll with j/k (or G)', vim.log.levels.WARN, { title = 'coder' })
      return
    end
    cur.confirming = not cur.confirming
    cur.lines[2] = cur.confirming and CONFIRM or KEYS
    set_keys(buf, cur.lines[2])
  end, { buffer = buf, nowait = true })
  vim.keymap.set('n', '<CR>', function()
    if cur and cur.confirming then
      choose('trust')
    end
  end, { buffer = buf, nowait = true })
  map('v', 'view')
  for _, lhs in ipairs({ 'r', 'q', '<Esc>' }) do
    map(lhs, 'restricted')
  end
end

-- reopen asks again about the last untrusted file (:Coder trust).
function M.reopen()
  if not M.last then
    vim.notify('coder: nothing to trust: the workspace has no untrusted .coder/config.json', vim.log.levels.INFO, { title = 'coder' })
    return
  end
  M.show(M.last, true)
end

-- pending reports whether the float is open (tests, statuslines).
function M.pending()
  return cur ~= nil
end

return M
