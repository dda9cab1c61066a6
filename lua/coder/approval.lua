-- Approval requests: one floating window at a time (filetype
-- coder-approval), later requests queue behind it. The agent waits in Go;
-- nothing here blocks Neovim. A request with file changes also starts the
-- inline diff review: the proposed change is drawn in the file's own buffer
-- (removed lines highlighted in place, added lines as virtual lines under
-- them) and each hunk can be accepted or rejected. Lua only sends the
-- choices; Go computes the resulting file. An inline edit (coder.inline)
-- uses the same review on a buffer: req.inline receives the answer, and
-- the review ends by itself once every hunk was accepted (ga) or
-- rejected (gr), or at once with gR.
local M = {}

local api = vim.api
local ns = api.nvim_create_namespace('coder_review')

local queue = {}
local cur = nil

local function keys()
  return require('coder.config').current.keys
end

local function valid_win(w)
  return w ~= nil and api.nvim_win_is_valid(w)
end

local function valid_buf(b)
  return b ~= nil and api.nvim_buf_is_valid(b)
end

-- one_line keeps a value on a single float line.
local function one_line(s)
  return (tostring(s or ''):gsub('\n', ' ⏎ '))
end

local function render_lines()
  local r = cur.req
  local k = keys()
  local lines = {}
  local function add(s)
    table.insert(lines, ' ' .. s)
  end
  -- Titles usually start with the tool ("write calc.go"): say it once.
  local title = one_line(r.title)
  if r.tool and r.tool ~= '' and title:sub(1, #r.tool + 1) ~= r.tool .. ' ' and title ~= r.tool then
    title = r.tool .. ' · ' .. title
  end
  add(title)
  if r.command and r.command ~= '' then
    add('command: ' .. one_line(r.command))
  elseif r.paths and #r.paths > 0 then
    add('file: ' .. table.concat(r.paths, ', '))
  end
  add('why: ' .. one_line(r.reason))
  if r.danger then
    add('⚠ this command can do damage that is hard to undo')
  end
  if #cur.hunks > 0 then
    local marks = {}
    for i, h in ipairs(cur.hunks) do
      local m = ('%d%s'):format(i, h.accepted and '✓' or '✗')
      if i == cur.idx then
        m = '[' .. m .. ']'
      end
      table.insert(marks, m)
    end
    local h = cur.hunks[cur.idx]
    add(('hunks: %s   (%s:%d)'):format(table.concat(marks, ' '), h.path, h.old_start))
  end
  local function key(name, label)
    return k[name] and (k[name] .. ' ' .. label) or nil
  end
  local choices = {}
  for _, c in ipairs({
    key('approve', #cur.hunks > 0 and 'apply accepted hunks once' or 'allow once'),
    key('deny', 'deny'),
    key('deny_alt', 'deny'),
  }) do
    table.insert(choices, c)
  end
  add(table.concat(choices, ' · '))
  local always = key('always', 'always: ' .. one_line((r.scope or '') ~= '' and r.scope or 'this action'))
  if always and not r.inline then
    add(always)
  end
  if #cur.hunks > 0 then
    local nav = {}
    for _, c in ipairs({
      key('next_hunk', 'next'),
      key('prev_hunk', 'previous hunk'),
      key('accept_hunk', 'accept'),
      key('reject_hunk', 'reject hunk'),
      r.inline and key('reject_all', 'reject all') or nil,
    }) do
      table.insert(nav, c)
    end
    add(table.concat(nav, ' · '))
  end
  if cur.waiting then
    add('(you are typing: leave Insert mode, e.g. <Esc>, and the cursor comes here)')
  end
  return lines
end

-- wrap breaks lines longer than width cells at spaces (a word longer than
-- a line is cut); continuation lines are indented under the text.
local function wrap(lines, width)
  local out = {}
  for _, l in ipairs(lines) do
    local indent = '   '
    while vim.fn.strdisplaywidth(l) > width do
      local n = vim.fn.strchars(l)
      local cut
      -- Every character takes at least one cell: start at width.
      for i = math.min(n, width), 1, -1 do
        local head = vim.fn.strcharpart(l, 0, i)
        if vim.fn.strdisplaywidth(head) <= width then
          cut = cut or i
          if vim.fn.strcharpart(l, i, 1) == ' ' then
            cut = i
            break
          end
        end
      end
      local head = vim.fn.strcharpart(l, 0, cut)
      if vim.trim(head) == '' then
        break
      end
      table.insert(out, (head:gsub('%s+$', '')))
      l = indent .. vim.fn.strcharpart(l, cut):gsub('^%s+', '')
    end
    table.insert(out, l)
  end
  return out
end

local function refresh_float()
  if not (cur and valid_buf(cur.buf)) then
    return
  end
  local raw = render_lines()
  -- Prefer the bottom of the reviewed (or previous) window, so the float
  -- covers neither the chat nor the hunks at the top of the view.
  local anchor = valid_win(cur.file_win) and cur.file_win or nil
  local ui = require('coder.ui').state
  if not anchor and valid_win(cur.prev) and cur.prev ~= ui.twin and cur.prev ~= ui.iwin
    and api.nvim_win_get_config(cur.prev).relative == '' then
    anchor = cur.prev
  end
  if anchor and api.nvim_win_get_width(anchor) < 42 then
    anchor = nil
  end
  -- Lines wider than the room are wrapped, never cut: the reason and the
  -- keys must stay readable in an 80-column terminal.
  local maxw = anchor and api.nvim_win_get_width(anchor) - 2 or vim.o.columns - 4
  local lines = wrap(raw, math.max(20, maxw - 1))
  if anchor and api.nvim_win_get_height(anchor) < #lines + 4 then
    anchor = nil
    maxw = vim.o.columns - 4
    lines = wrap(raw, math.max(20, maxw - 1))
  end
  vim.bo[cur.buf].modifiable = true
  api.nvim_buf_set_lines(cur.buf, 0, -1, false, lines)
  vim.bo[cur.buf].modifiable = false
  api.nvim_buf_clear_namespace(cur.buf, ns, 0, -1)
  pcall(api.nvim_buf_add_highlight, cur.buf, ns, 'CoderApprovalTitle', 0, 0, -1)
  if valid_win(cur.win) then
    local w = 40
    for _, l in ipairs(lines) do
      w = math.max(w, vim.fn.strdisplaywidth(l) + 1)
    end
    w = math.min(w, maxw)
    local h = math.max(1, math.min(#lines, vim.o.lines - 4))
    if anchor then
      api.nvim_win_set_config(cur.win, {
        relative = 'win',
        win = anchor,
        width = w,
        height = h,
        row = api.nvim_win_get_height(anchor) - h - 2,
        col = 0,
      })
    else
      api.nvim_win_set_config(cur.win, {
        relative = 'editor',
        width = w,
        height = h,
        row = math.max(0, vim.o.lines - h - 5),
        col = math.max(0, math.floor((vim.o.columns - w) / 2)),
      })
    end
  end
end

-- Inline diff review -----------------------------------------------------

local function hunk_rows(h)
  local n = api.nvim_buf_line_count(h.buf)
  local start = math.max(0, math.min(h.old_start - 1, n - 1))
  local stop = start
  if #h.old_lines > 0 then
    stop = math.min(h.old_start - 1 + #h.old_lines - 1, n - 1)
  end
  return start, stop
end

-- expand_tabs replaces tabs with the spaces the buffer would show:
-- virtual text draws a tab as one cell, and the added lines would lose
-- their indentation.
local function expand_tabs(s, ts)
  if not s:find('\t', 1, true) then
    return s
  end
  ts = ts > 0 and ts or 8
  local out, col = {}, 0
  for _, ch in ipairs(vim.fn.split(s, '\\zs')) do
    if ch == '\t' then
      local n = ts - col % ts
      table.insert(out, string.rep(' ', n))
      col = col + n
    else
      table.insert(out, ch)
      col = col + vim.fn.strdisplaywidth(ch)
    end
  end
  return table.concat(out)
end

local function draw(buf)
  api.nvim_buf_clear_namespace(buf, ns, 0, -1)
  local n = api.nvim_buf_line_count(buf)
  local empty = n == 1 and (api.nvim_buf_get_lines(buf, 0, 1, false)[1] or '') == ''
  for i, h in ipairs(cur.hunks) do
    if h.buf == buf then
      local del = h.accepted and 'CoderDiffDelete' or 'CoderHunkRejected'
      local add = h.accepted and 'CoderDiffAdd' or 'CoderHunkRejected'
      for k = 0, #h.old_lines - 1 do
        local row = h.old_start - 1 + k
        if row < n then
          pcall(api.nvim_buf_set_extmark, buf, ns, row, 0, { line_hl_group = del, sign_text = '-', sign_hl_group = del })
        end
      end
      local start, stop = hunk_rows(h)
      if #h.new_lines > 0 then
        local virt = {}
        local ts = vim.bo[buf].tabstop
        for _, l in ipairs(h.new_lines) do
          table.insert(virt, { { '+ ' .. expand_tabs(l, ts), add } })
        end
        local row, above = stop, false
        if #h.old_lines == 0 and h.old_start - 1 < n and not empty then
          row, above = h.old_start - 1, true
        end
        pcall(api.nvim_buf_set_extmark, buf, ns, row, 0, { virt_lines = virt, virt_lines_above = above })
      end
      local label = (' %s hunk %d/%d: %s'):format(
        i == cur.idx and '▶' or '◆',
        i,
        #cur.hunks,
        h.accepted and 'accept' or 'reject'
      )
      local hl = i == cur.idx and 'CoderHunkCurrent' or (h.accepted and 'CoderHunkAccepted' or 'CoderHunkRejected')
      pcall(api.nvim_buf_set_extmark, buf, ns, start, 0, { virt_text = { { label, hl } }, virt_text_pos = 'eol' })
    end
  end
end

local function draw_all()
  local seen = {}
  for _, h in ipairs(cur.hunks) do
    if valid_buf(h.buf) and not seen[h.buf] then
      seen[h.buf] = true
      draw(h.buf)
    end
  end
end

-- review_win finds (or makes) a window in this tab to show buf.
local function review_win(buf)
  local ui = require('coder.ui').state
  local wins = api.nvim_tabpage_list_wins(0)
  for _, w in ipairs(wins) do
    if api.nvim_win_get_buf(w) == buf then
      return w
    end
  end
  local function show_in(w)
    local old = api.nvim_win_get_buf(w)
    if pcall(api.nvim_win_set_buf, w, buf) then
      if cur.restore[w] == nil then
        cur.restore[w] = old
      end
      return true
    end
    return false
  end
  -- Never swap the buffer of the window the user is typing in: keys typed
  -- ahead would land in the reviewed file.
  local typing = api.nvim_get_mode().mode ~= 'n' and api.nvim_get_current_win() or nil
  if valid_win(cur.file_win) and cur.file_win ~= typing and show_in(cur.file_win) then
    return cur.file_win
  end
  for _, w in ipairs(wins) do
    if api.nvim_win_get_config(w).relative == '' and w ~= ui.twin and w ~= ui.iwin and w ~= typing and show_in(w) then
      return w
    end
  end
  local prev = api.nvim_get_current_win()
  vim.cmd('topleft vsplit')
  local w = api.nvim_get_current_win()
  api.nvim_win_set_buf(w, buf)
  if valid_win(prev) then
    api.nvim_set_current_win(prev)
  end
  return w
end

local function jump(i)
  if not cur or #cur.hunks == 0 then
    return
  end
  cur.idx = ((i - 1) % #cur.hunks) + 1
  local h = cur.hunks[cur.idx]
  if not valid_buf(h.buf) then
    return
  end
  local w = review_win(h.buf)
  cur.file_win = w
  local start = hunk_rows(h)
  pcall(api.nvim_win_set_cursor, w, { start + 1, 0 })
  pcall(api.nvim_win_call, w, function()
    vim.cmd('normal! zz')
  end)
  draw_all()
  refresh_float()
end

-- hunk_at returns the index of the hunk under the cursor of buf, or the
-- current one.
local function hunk_at(buf)
  if api.nvim_get_current_buf() ~= buf then
    return cur.idx
  end
  local row = api.nvim_win_get_cursor(0)[1] - 1
  local best
  for i, h in ipairs(cur.hunks) do
    if h.buf == buf then
      local start, stop = hunk_rows(h)
      if row >= start and row <= stop then
        return i
      end
      if start <= row then
        best = i
      end
    end
  end
  return best or cur.idx
end

local function set_hunk(accepted, buf)
  if not cur or #cur.hunks == 0 then
    return
  end
  cur.idx = buf and hunk_at(buf) or cur.idx
  cur.hunks[cur.idx].accepted = accepted
  cur.hunks[cur.idx].decided = true
  if cur.req.inline then
    local all = true
    for _, h in ipairs(cur.hunks) do
      all = all and h.decided
    end
    if all then
      M.answer('once')
      return
    end
    -- On to the next hunk still to decide.
    for i = 1, #cur.hunks do
      local j = (cur.idx + i - 1) % #cur.hunks + 1
      if not cur.hunks[j].decided then
        jump(j)
        return
      end
    end
  end
  draw_all()
  refresh_float()
end

M.next_hunk = function()
  if cur then
    jump(cur.idx + 1)
  end
end
M.prev_hunk = function()
  if cur then
    jump(cur.idx - 1)
  end
end
M.accept_hunk = function(buf)
  set_hunk(true, buf)
end
M.reject_hunk = function(buf)
  set_hunk(false, buf)
end

local function map_file_buffer(buf)
  local k = keys()
  cur.maps[buf] = cur.maps[buf] or {}
  local actions = {
    { k.next_hunk, M.next_hunk, 'next hunk' },
    { k.prev_hunk, M.prev_hunk, 'previous hunk' },
    { k.accept_hunk, function() M.accept_hunk(buf) end, 'accept hunk' },
    { k.reject_hunk, function() M.reject_hunk(buf) end, 'reject hunk' },
    { cur.req.inline and k.reject_all or nil, function() M.answer('deny') end, 'reject all' },
  }
  for _, a in ipairs(actions) do
    local lhs = a[1]
    -- Never replace a buffer-local mapping the user has.
    if lhs and vim.fn.maparg(lhs, 'n', false, true).buffer ~= 1 then
      vim.keymap.set('n', lhs, a[2], { buffer = buf, nowait = true, silent = true, desc = 'coder review: ' .. a[3] })
      table.insert(cur.maps[buf], lhs)
    end
  end
end

local function start_review()
  for _, d in ipairs(cur.req.diffs or {}) do
    local buf = d.buf -- an inline edit's buffer, maybe unnamed
    if not buf then
      if vim.fn.bufexists(d.abs) == 0 then
        cur.created[d.abs] = true
      end
      buf = vim.fn.bufadd(d.abs)
      pcall(vim.fn.bufload, buf)
      vim.bo[buf].buflisted = true
    end
    for hi, h in ipairs(d.hunks or {}) do
      table.insert(cur.hunks, {
        buf = buf,
        path = d.path,
        index = hi,
        old_start = h.old_start,
        old_lines = h.old_lines or {},
        new_lines = h.new_lines or {},
        accepted = true,
      })
    end
    if #(d.hunks or {}) > 0 then
      cur.files[d.path] = true
      api.nvim_buf_call(buf, function()
        map_file_buffer(buf)
      end)
    end
  end
end

-- Float --------------------------------------------------------------------

-- teardown closes the float and removes the review. applied: the change
-- goes ahead, so reviewed files stay on screen; otherwise windows get their
-- previous buffers back and buffers made for a new file are dropped.
local function teardown(applied)
  if not cur then
    return
  end
  local c = cur
  cur = nil
  for buf, lhss in pairs(c.maps) do
    if valid_buf(buf) then
      api.nvim_buf_clear_namespace(buf, ns, 0, -1)
      for _, lhs in ipairs(lhss) do
        pcall(vim.keymap.del, 'n', lhs, { buffer = buf })
      end
    end
  end
  for _, h in ipairs(c.hunks) do
    if valid_buf(h.buf) then
      api.nvim_buf_clear_namespace(h.buf, ns, 0, -1)
    end
  end
  local was_current = valid_win(c.win) and api.nvim_get_current_win() == c.win
  if valid_win(c.win) then
    pcall(api.nvim_win_close, c.win, true)
  end
  if valid_buf(c.buf) then
    pcall(api.nvim_buf_delete, c.buf, { force = true })
  end
  if not applied then
    for w, b in pairs(c.restore) do
      if valid_win(w) and valid_buf(b) then
        pcall(api.nvim_win_set_buf, w, b)
      end
    end
    for abs in pairs(c.created) do
      local b = vim.fn.bufnr(abs)
      if b > 0 and vim.fn.filereadable(abs) == 0 and not vim.bo[b].modified and #vim.fn.win_findbuf(b) == 0 then
        pcall(api.nvim_buf_delete, b, {})
      end
    end
  end
  if was_current and valid_win(c.prev) then
    api.nvim_set_current_win(c.prev)
  end
end

local function show(req)
  cur = {
    req = req,
    hunks = {},
    idx = 1,
    files = {},
    maps = {},
    created = {}, -- abs path -> true: buffers made only for the review
    restore = {}, -- window -> buffer it showed before the review
    prev = api.nvim_get_current_win(),
  }
  start_review()
  local buf = api.nvim_create_buf(false, true)
  cur.buf = buf
  vim.bo[buf].bufhidden = 'wipe'
  local k = keys()
  local function bmap(lhs, fn, desc)
    if lhs then
      vim.keymap.set('n', lhs, fn, { buffer = buf, nowait = true, silent = true, desc = 'coder: ' .. desc })
    end
  end
  bmap(k.approve, function() M.answer('once') end, 'allow once')
  if not req.inline then
    bmap(k.always, function() M.answer('always') end, 'allow always')
  end
  bmap(k.deny, function() M.answer('deny') end, 'deny')
  bmap(k.deny_alt, function() M.answer('deny') end, 'deny')
  if #cur.hunks > 0 then
    bmap(k.next_hunk, M.next_hunk, 'next hunk')
    bmap(k.prev_hunk, M.prev_hunk, 'previous hunk')
    bmap(k.accept_hunk, function() M.accept_hunk() end, 'accept hunk')
    bmap(k.reject_hunk, function() M.reject_hunk() end, 'reject hunk')
    if req.inline then
      bmap(k.reject_all, function() M.answer('deny') end, 'reject all')
    end
  end
  -- An inline edit is reviewed where it was asked: the cursor stays in
  -- the buffer.
  local focus = require('coder.config').current.focus_approval and not req.inline
  cur.win = api.nvim_open_win(buf, false, {
    relative = 'editor', row = 1, col = 1, width = 40, height = 1,
    border = 'rounded', style = 'minimal', focusable = true,
    -- Above the chat's own floats (layout = 'float').
    zindex = 100,
  })
  vim.wo[cur.win].wrap = false
  vim.wo[cur.win].winhighlight = 'FloatBorder:CoderApprovalBorder'
  refresh_float()
  vim.bo[buf].filetype = 'coder-approval'
  if #cur.hunks > 0 then
    jump(1)
  end
  -- Closing the float (:q, CTRL-W c) answers like <Esc>: a request
  -- without a float would leave the agent waiting for good.
  local id, win = req.id, cur.win
  api.nvim_create_autocmd('WinClosed', {
    pattern = tostring(win),
    once = true,
    callback = function()
      vim.schedule(function()
        if cur and cur.req.id == id then
          M.answer('deny')
        end
      end)
    end,
  })
  if focus then
    local mode = api.nvim_get_mode()
    if mode.mode == 'n' and not mode.blocking then
      api.nvim_set_current_win(win)
    else
      -- The user is typing (Insert, Visual, Command-line mode, a pending
      -- operator): keys typed ahead must never answer the request, so the
      -- float takes the cursor only once they are back in Normal mode.
      cur.waiting = true
      refresh_float()
      api.nvim_create_autocmd('ModeChanged', {
        pattern = '*:n',
        once = true,
        callback = function()
          vim.schedule(function()
            if cur and cur.req.id == id and valid_win(win) and api.nvim_get_mode().mode == 'n' then
              cur.waiting = false
              refresh_float()
              api.nvim_set_current_win(win)
            end
          end)
        end,
      })
    end
  end
end

-- push queues a request from the host.
function M.push(req)
  table.insert(queue, req)
  if not cur then
    M.next()
  end
end

function M.next()
  if cur then
    return
  end
  local req = table.remove(queue, 1)
  if req then
    show(req)
  end
end

-- answer sends the user's decision on the request shown now.
function M.answer(decision)
  if not cur then
    return
  end
  local req = cur.req
  local accepted = vim.empty_dict()
  if decision ~= 'deny' and #cur.hunks > 0 then
    accepted = {}
    for _, h in ipairs(cur.hunks) do
      accepted[h.path] = accepted[h.path] or {}
      table.insert(accepted[h.path], h.accepted)
    end
  end
  -- Rejecting every hunk writes nothing: clean up as for a denial.
  local applies = decision ~= 'deny'
  if applies and #cur.hunks > 0 then
    applies = false
    for _, h in ipairs(cur.hunks) do
      applies = applies or h.accepted
    end
  end
  local host = require('coder.host')
  if not req.inline and host.running() then
    host.notify('coder_answer', req.id, decision, accepted)
  end
  teardown(applies)
  if req.inline then
    req.inline(decision, accepted) -- after the review's marks are gone
  end
  M.next()
end

-- closed drops a request the host resolved on its own (interrupted turn).
function M.closed(id)
  if cur and cur.req.id == id then
    teardown()
    M.next()
    return
  end
  for i, r in ipairs(queue) do
    if r.id == id then
      table.remove(queue, i)
      return
    end
  end
end

-- reset drops everything (the host died).
function M.reset()
  queue = {}
  teardown()
end

-- current returns the request shown now, its float window and review
-- state (for tests and statuslines).
function M.current()
  if not cur then
    return nil
  end
  local hunks = {}
  for _, h in ipairs(cur.hunks) do
    table.insert(hunks, { path = h.path, accepted = h.accepted })
  end
  return { id = cur.req.id, win = cur.win, buf = cur.buf, idx = cur.idx, hunks = hunks, queued = #queue }
end

-- focus moves the cursor into the approval float.
function M.focus()
  if cur and valid_win(cur.win) then
    api.nvim_set_current_win(cur.win)
    return true
  end
  return false
end

return M
