-- The inline diff review of an approval request with file changes
-- (coder.approval shows the float): the proposed change is drawn in the
-- file's own buffer (removed lines highlighted in place, added lines as
-- virtual lines under them) and each hunk can be accepted or rejected. An
-- inline edit's review (req.inline) asks for the answer by itself once
-- every hunk was decided.
local M = {}

local api = vim.api
local ns = api.nvim_create_namespace('coder_review')

local rv = nil -- the review under way

local chat = require('coder.ui')
local valid_win, valid_buf = chat.valid_win, chat.valid_buf

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
  for i, h in ipairs(rv.hunks) do
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
        i == rv.idx and '▶' or '◆',
        i,
        #rv.hunks,
        M.state_word(h)
      )
      local hl = i == rv.idx and 'CoderHunkCurrent' or (h.accepted and 'CoderHunkAccepted' or 'CoderHunkRejected')
      pcall(api.nvim_buf_set_extmark, buf, ns, start, 0, { virt_text = { { label, hl } }, virt_text_pos = 'eol' })
    end
  end
end

-- state_word says what a hunk's decision is, never what to do:
-- "accepted", "rejected", or, in an inline edit's review where nothing is
-- taken unasked, "undecided".
function M.state_word(h)
  if rv and rv.inline and not h.decided then
    return 'undecided'
  end
  return h.accepted and 'accepted' or 'rejected'
end

local function draw_all()
  local seen = {}
  for _, h in ipairs(rv.hunks) do
    if valid_buf(h.buf) and not seen[h.buf] then
      seen[h.buf] = true
      draw(h.buf)
    end
  end
end

-- review_win finds (or makes) a window in this tab to show buf.
local function review_win(buf)
  local ui = chat.state
  local wins = api.nvim_tabpage_list_wins(0)
  for _, w in ipairs(wins) do
    if api.nvim_win_get_buf(w) == buf then
      return w
    end
  end
  local function show_in(w)
    local old = api.nvim_win_get_buf(w)
    if pcall(api.nvim_win_set_buf, w, buf) then
      if rv.restore[w] == nil then
        rv.restore[w] = old
      end
      return true
    end
    return false
  end
  -- Never swap the buffer of the window the user is typing in: keys typed
  -- ahead would land in the reviewed file.
  local typing = api.nvim_get_mode().mode ~= 'n' and api.nvim_get_current_win() or nil
  if valid_win(rv.file_win) and rv.file_win ~= typing and show_in(rv.file_win) then
    return rv.file_win
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
  if not rv or #rv.hunks == 0 then
    return
  end
  rv.idx = ((i - 1) % #rv.hunks) + 1
  local h = rv.hunks[rv.idx]
  if not valid_buf(h.buf) then
    return
  end
  local w = review_win(h.buf)
  rv.file_win = w
  local start = hunk_rows(h)
  pcall(api.nvim_win_set_cursor, w, { start + 1, 0 })
  pcall(api.nvim_win_call, w, function()
    vim.cmd('normal! zz')
  end)
  draw_all()
  rv.changed()
end

-- hunk_at returns the index of the hunk under the cursor of buf, or the
-- current one.
local function hunk_at(buf)
  if api.nvim_get_current_buf() ~= buf then
    return rv.idx
  end
  local row = api.nvim_win_get_cursor(0)[1] - 1
  local best
  for i, h in ipairs(rv.hunks) do
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
  return best or rv.idx
end

local function set_hunk(accepted, buf)
  if not rv or #rv.hunks == 0 then
    return
  end
  rv.idx = buf and hunk_at(buf) or rv.idx
  local h = rv.hunks[rv.idx]
  if h.decided and h.accepted ~= accepted then
    -- Deciding again is the user's explicit key on that hunk: say so.
    vim.notify(('coder review: hunk %d/%d %s (was %s)'):format(rv.idx, #rv.hunks, accepted and 'accepted' or 'rejected', accepted and 'rejected' or 'accepted'), vim.log.levels.INFO, { title = 'coder' })
  end
  h.accepted, h.decided = accepted, true
  if rv.inline then
    -- While the answer streams, more hunks may come: it is answered once
    -- the whole answer's hunks are decided (M.update).
    if not rv.streaming and M.all_decided() then
      require('coder.approval').answer('once')
      return
    end
    -- On to the next hunk still to decide.
    for i = 1, #rv.hunks do
      local j = (rv.idx + i - 1) % #rv.hunks + 1
      if not rv.hunks[j].decided then
        jump(j)
        return
      end
    end
  end
  draw_all()
  rv.changed()
end

-- all_decided reports whether every hunk of the review was accepted or
-- rejected.
function M.all_decided()
  for _, h in ipairs(rv and rv.hunks or {}) do
    if not h.decided then
      return false
    end
  end
  return true
end

-- first shows the first hunk.
function M.first()
  jump(1)
end

-- step moves to the next (dir 1) or previous (-1) hunk; in an inline
-- edit's review, to the next undecided one while any remain, so walking
-- never lands on a decided hunk for ga or gr to flip unseen.
local function step(dir)
  if not rv then
    return
  end
  local n = #rv.hunks
  if rv.inline and not M.all_decided() then
    for i = 1, n do
      local j = ((rv.idx - 1 + dir * i) % n) + 1
      if not rv.hunks[j].decided then
        jump(j)
        return
      end
    end
  end
  jump(rv.idx + dir)
end
M.next_hunk = function()
  step(1)
end
M.prev_hunk = function()
  step(-1)
end
M.accept_hunk = function(buf)
  set_hunk(true, buf)
end
M.reject_hunk = function(buf)
  set_hunk(false, buf)
end

-- comment asks for a comment on the hunk under the cursor in buf
-- (coder.comments); its lines are the new text's, later hunks of the
-- same file shifted by the earlier ones.
local function comment(buf)
  if not rv or #rv.hunks == 0 then
    return
  end
  local i = hunk_at(buf)
  local h = rv.hunks[i]
  local shift = 0
  for j = 1, i - 1 do
    local o = rv.hunks[j]
    if o.buf == h.buf and o.accepted then
      shift = shift + #o.new_lines - #o.old_lines
    end
  end
  local start = math.max(1, h.old_start + shift)
  local comments = require('coder.comments')
  comments.add({
    path = h.path,
    abs = api.nvim_buf_get_name(h.buf),
    buf = h.buf,
    start = start,
    stop = #h.new_lines > 1 and start + #h.new_lines - 1 or 0,
    diff = comments.diff(h.path, h.old_start, start, h.old_lines, h.new_lines),
    kept = h.decided and h.accepted, -- nil while undecided
    review = rv.inline and 'inline edit' or 'approval',
  })
end

-- comment_hunk comments on the hunk under the cursor of buf (nil: the
-- current hunk).
function M.comment_hunk(buf)
  comment(buf)
end

local function map_file_buffer(buf)
  local k = require('coder.config').current.keys
  rv.maps[buf] = rv.maps[buf] or {}
  local actions = {
    { k.next_hunk, M.next_hunk, 'next hunk' },
    { k.prev_hunk, M.prev_hunk, 'previous hunk' },
    { k.accept_hunk, function() M.accept_hunk(buf) end, 'accept hunk' },
    { k.reject_hunk, function() M.reject_hunk(buf) end, 'reject hunk' },
    { rv.inline and k.reject_all or nil, function() require('coder.approval').answer('deny') end, 'reject all' },
    -- An inline edit keeps the cursor in the buffer: the float's apply
    -- and deny keys work here too (not <Esc>, pressed out of habit).
    { rv.inline and k.approve or nil, function() require('coder.approval').answer('once') end, 'apply the accepted hunks' },
    { rv.inline and k.deny or nil, function() require('coder.approval').answer('deny') end, 'deny the edit' },
    { k.review_comment, function() comment(buf) end, 'comment on the hunk' },
    { k.review_send, function() require('coder.comments').send() end, 'send the waiting comments' },
  }
  for _, a in ipairs(actions) do
    local lhs = a[1]
    -- Never replace a buffer-local mapping the user has.
    if lhs and vim.fn.maparg(lhs, 'n', false, true).buffer ~= 1 then
      vim.keymap.set('n', lhs, a[2], { buffer = buf, nowait = true, silent = true, desc = 'coder review: ' .. a[3] })
      table.insert(rv.maps[buf], lhs)
    end
  end
end

-- add_hunks adds the hunks of diff d (in buffer buf) to the review and
-- maps the review's keys in buf.
local function add_hunks(buf, d)
  for hi, h in ipairs(d.hunks or {}) do
    table.insert(rv.hunks, {
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
    rv.files[d.path] = true
    if not rv.maps[buf] then
      api.nvim_buf_call(buf, function()
        map_file_buffer(buf)
      end)
    end
  end
end

-- start begins the review of req's file changes (none: a review without
-- hunks) and returns it: hunks, idx (the current hunk), file_win (the
-- window showing it). changed is called after every change of it.
function M.start(req, changed)
  rv = {
    hunks = {},
    idx = 1,
    files = {},
    maps = {},
    created = {}, -- abs path -> true: buffers made only for the review
    restore = {}, -- window -> buffer it showed before the review
    inline = req.inline and true or false,
    streaming = req.streaming and true or false,
    changed = changed,
  }
  for _, d in ipairs(req.diffs or {}) do
    local buf = d.buf -- an inline edit's buffer, maybe unnamed
    if not buf then
      if vim.fn.bufexists(d.abs) == 0 then
        rv.created[d.abs] = true
      end
      buf = vim.fn.bufadd(d.abs)
      if vim.fn.filereadable(d.abs) == 0 and not api.nvim_buf_is_loaded(buf) then
        -- A new file's buffer only carries the review's virtual lines:
        -- loaded without autocommands, it gets no filetype, so no language
        -- server attaches and reports errors against the empty file
        -- (gopls: E:1). Once written, the reload attaches them as usual.
        pcall(vim.cmd, ('noautocmd call bufload(%d)'):format(buf))
      else
        pcall(vim.fn.bufload, buf)
      end
      vim.bo[buf].buflisted = true
    end
    add_hunks(buf, d)
  end
  return rv
end

-- update replaces the hunks of an inline edit's review with those of
-- diffs (its answer streamed further, or is complete: streaming false). A
-- hunk the review had already keeps its decision; the current one stays
-- current where it can.
function M.update(diffs, streaming)
  if not rv then
    return
  end
  local old, cur, was = rv.hunks, rv.hunks[rv.idx], rv.idx
  rv.hunks = {}
  for _, d in ipairs(diffs) do
    add_hunks(d.buf, d)
  end
  rv.streaming = streaming
  local function same(a, b)
    return a.buf == b.buf and a.old_start == b.old_start and vim.deep_equal(a.old_lines, b.old_lines) and vim.deep_equal(a.new_lines, b.new_lines)
  end
  -- A current hunk that grew stays current by its place.
  rv.idx = math.max(1, math.min(was, #rv.hunks))
  for i, h in ipairs(rv.hunks) do
    for _, o in ipairs(old) do
      if same(h, o) then
        h.accepted, h.decided = o.accepted, o.decided
        if o == cur then
          rv.idx = i
        end
      end
    end
  end
  draw_all()
  rv.changed()
end

-- stop takes the review's keys and marks off the files' buffers.
function M.stop()
  local r = rv
  rv = nil
  if not r then
    return
  end
  for buf, lhss in pairs(r.maps) do
    if valid_buf(buf) then
      api.nvim_buf_clear_namespace(buf, ns, 0, -1)
      for _, lhs in ipairs(lhss) do
        pcall(vim.keymap.del, 'n', lhs, { buffer = buf })
      end
    end
  end
  for _, h in ipairs(r.hunks) do
    if valid_buf(h.buf) then
      api.nvim_buf_clear_namespace(h.buf, ns, 0, -1)
    end
  end
end

-- put_back undoes what review r showed: windows get their previous
-- buffers back (the user returns to where they were), and for a change
-- that does not go ahead (not applied) buffers made for a new file are
-- dropped.
function M.put_back(r, applied)
  for w, b in pairs(r.restore) do
    if valid_win(w) and valid_buf(b) then
      pcall(api.nvim_win_set_buf, w, b)
    end
  end
  if applied then
    return
  end
  for abs in pairs(r.created) do
    local b = vim.fn.bufnr(abs)
    if b > 0 and vim.fn.filereadable(abs) == 0 and not vim.bo[b].modified and #vim.fn.win_findbuf(b) == 0 then
      pcall(api.nvim_buf_delete, b, {})
    end
  end
end

return M
