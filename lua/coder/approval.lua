-- Approval requests: one floating window at a time (filetype
-- coder-approval), later requests queue behind it. The agent waits in Go;
-- nothing here blocks Neovim. A request with file changes also starts the
-- inline diff review (coder.review) of each hunk. Lua only sends the
-- choices; Go computes the resulting file. An inline edit (coder.inline)
-- uses the same review on a buffer: req.inline receives the answer, and
-- the review ends by itself once every hunk was accepted (ga) or
-- rejected (gr), or at once with gR.
local M = {}

local api = vim.api
local review = require('coder.review')
local ns = api.nvim_create_namespace('coder_review')

local cur = nil

local function keys()
  return require('coder.config').current.keys
end

local chat = require('coder.ui')
local valid_win, valid_buf = chat.valid_win, chat.valid_buf

-- one_line keeps a value on a single float line.
local function one_line(s)
  return (tostring(s or ''):gsub('\n', ' ⏎ '))
end

local function render_lines()
  local r = cur.req
  local rv = cur.review
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
  -- Another session's request (a task's, or the chat's while a task is
  -- shown) says whose it is first.
  if r.label and r.label ~= '' then
    add('⚑ ' .. one_line(r.label))
  end
  add(title)
  if r.command and r.command ~= '' then
    add('command: ' .. one_line(r.command))
  elseif r.paths and #r.paths > 0 then
    add('file: ' .. table.concat(r.paths, ', '))
  end
  add('why: ' .. one_line(r.reason))
  if r.sandbox == 'outside' then
    add('⚠ runs OUTSIDE the sandbox: nothing confines what it writes or where it connects')
  elseif r.sandbox == 'in' then
    add('runs in the sandbox (:help coder-sandbox)')
  end
  if r.danger then
    add('⚠ this command can do damage that is hard to undo')
  end
  if #rv.hunks > 0 then
    local marks = {}
    for i, h in ipairs(rv.hunks) do
      local m = ('%d%s'):format(i, h.accepted and '✓' or '✗')
      if i == rv.idx then
        m = '[' .. m .. ']'
      end
      table.insert(marks, m)
    end
    local h = rv.hunks[rv.idx]
    add(('hunks: %s   (%s:%d)'):format(table.concat(marks, ' '), h.path, h.old_start))
  end
  local function key(name, label)
    return k[name] and (k[name] .. ' ' .. label) or nil
  end
  local choices = {}
  for _, c in ipairs({
    key('approve', r.inline and 'apply all but the rejected hunks' or #rv.hunks > 0 and 'apply accepted hunks once' or (r.sandbox == 'outside' and 'run outside the sandbox' or 'allow once')),
    key('deny', 'deny'),
    -- An inline edit is decided in its buffer, where <Esc> does not deny.
    not r.inline and key('deny_alt', 'deny') or nil,
  }) do
    table.insert(choices, c)
  end
  add(table.concat(choices, ' · '))
  local always = key('always', 'always: ' .. one_line((r.scope or '') ~= '' and r.scope or 'this action'))
  if r.always == false and not r.inline then
    -- The host does not offer "always" here: no key, only why.
    add(one_line((r.scope or '') ~= '' and r.scope or 'this call only'))
  elseif always and not r.inline then
    add(always)
  end
  if #rv.hunks > 0 then
    local nav = {}
    for _, c in ipairs({
      key('next_hunk', 'next'),
      key('prev_hunk', 'previous hunk'),
      key('accept_hunk', 'accept'),
      key('reject_hunk', 'reject hunk'),
      r.inline and key('reject_all', 'reject all') or nil,
      key('review_comment', 'comment'),
    }) do
      table.insert(nav, c)
    end
    add(table.concat(nav, ' · '))
  end
  if r.streaming then
    add('(the answer is still coming: more hunks may follow)')
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
  local anchor = valid_win(cur.review.file_win) and cur.review.file_win or nil
  local ui = chat.state
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

-- teardown closes the float and ends the review; the windows it used
-- get their buffers back. applied: the change goes ahead, so buffers it
-- made for new files stay.
local function teardown(applied)
  if not cur then
    return
  end
  local c = cur
  cur = nil
  require('coder.quitguard').waiting_for(nil)
  review.stop()
  local was_current = valid_win(c.win) and api.nvim_get_current_win() == c.win
  if valid_win(c.win) then
    pcall(api.nvim_win_close, c.win, true)
  end
  if valid_buf(c.buf) then
    pcall(api.nvim_buf_delete, c.buf, { force = true })
  end
  review.put_back(c.review, applied)
  if was_current and valid_win(c.prev) then
    api.nvim_set_current_win(c.prev)
  end
end

local function show(req)
  cur = {
    req = req,
    prev = api.nvim_get_current_win(),
  }
  cur.review = review.start(req, refresh_float)
  local guard = require('coder.quitguard')
  guard.attach()

  local buf = api.nvim_create_buf(false, true)
  cur.buf = buf
  vim.bo[buf].bufhidden = 'wipe'
  pcall(api.nvim_buf_set_name, buf, 'coder://approval')
  guard.waiting_for(one_line(req.title), buf)
  local k = keys()
  local function bmap(lhs, fn, desc)
    if lhs then
      vim.keymap.set('n', lhs, fn, { buffer = buf, nowait = true, silent = true, desc = 'coder: ' .. desc })
    end
  end
  bmap(k.approve, function() M.answer('once') end, 'allow once')
  if not req.inline and req.always ~= false then
    bmap(k.always, function() M.answer('always') end, 'allow always')
  end
  bmap(k.deny, function() M.answer('deny') end, 'deny')
  bmap(k.deny_alt, function() M.answer('deny') end, 'deny')
  if #cur.review.hunks > 0 then
    bmap(k.next_hunk, review.next_hunk, 'next hunk')
    bmap(k.prev_hunk, review.prev_hunk, 'previous hunk')
    bmap(k.accept_hunk, function() review.accept_hunk() end, 'accept hunk')
    bmap(k.reject_hunk, function() review.reject_hunk() end, 'reject hunk')
    bmap(k.review_comment, function() review.comment_hunk() end, 'comment on the hunk')
    bmap(k.review_send, require('coder.comments').send, 'send the waiting comments')
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
  if #cur.review.hunks > 0 then
    review.first()
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

local pending = require('coder.pending').new({
  shown = function()
    return cur and cur.req.id
  end,
  show = show,
  teardown = function()
    teardown()
  end,
})

-- push queues a request from the host; closed drops one the host
-- resolved on its own (interrupted turn); reset drops everything (the
-- host died).
M.push, M.next, M.closed, M.reset = pending.push, pending.next, pending.closed, pending.reset

-- answer sends the user's decision on the request shown now.
function M.answer(decision)
  if not cur then
    return
  end
  local req = cur.req
  if req.streaming and decision ~= 'deny' then
    vim.notify('coder edit: the answer is still coming; decide once it is complete', vim.log.levels.WARN, { title = 'coder' })
    return
  end
  local accepted = vim.empty_dict()
  local hunks = cur.review.hunks
  if decision ~= 'deny' and #hunks > 0 then
    accepted = {}
    for _, h in ipairs(hunks) do
      accepted[h.path] = accepted[h.path] or {}
      table.insert(accepted[h.path], h.accepted)
    end
  end
  -- Rejecting every hunk writes nothing: clean up as for a denial.
  local applies = decision ~= 'deny'
  if applies and #hunks > 0 then
    applies = false
    for _, h in ipairs(hunks) do
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

-- update replaces the file changes of request id, an inline edit whose
-- answer streamed further or is complete (streaming false): in the
-- review if it is shown (decisions on unchanged hunks are kept), else in
-- the queue. Once complete with every hunk decided, it is answered.
function M.update(id, diffs, streaming)
  if cur and cur.req.id == id then
    cur.req.diffs, cur.req.streaming = diffs, streaming
    review.update(diffs, streaming)
    if not streaming and #cur.review.hunks > 0 and review.all_decided() then
      M.answer('once')
    end
    return
  end
  local r = pending.find(id)
  if r then
    r.diffs, r.streaming = diffs, streaming
  end
end

-- current returns the request shown now, its float window and review
-- state (for tests and statuslines).
function M.current()
  if not cur then
    return nil
  end
  local hunks = {}
  for _, h in ipairs(cur.review.hunks) do
    table.insert(hunks, { path = h.path, accepted = h.accepted })
  end
  return { id = cur.req.id, win = cur.win, buf = cur.buf, idx = cur.review.idx, hunks = hunks, queued = pending.len(), streaming = cur.req.streaming and true or false }
end

-- focus moves the cursor into the float.
function M.focus()
  return require('coder.pending').focus_float(cur)
end

return M
