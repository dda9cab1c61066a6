-- :Coder review [N]: a turn's changes as a quickfix list of hunks, with a
-- diff view of the hunk under the cursor; in the quickfix window `ga`
-- keeps a hunk, `gr` rejects it (the host reverts it and tells the model,
-- with the reason asked here). The hunks and every decision are the
-- host's (:help coder-review). A task's change before its merge is
-- reviewed the same way (open_task): its hunks, kept or rejected, decide
-- what gm applies (:help coder-tasks).
local M = {}

-- kind: 'turn' or 'task', what st.n numbers; verdict: its request.
local st = { n = nil, hunks = {}, title = nil, diffbuf = nil, kind = 'turn' }

local requests = {
  turn = { list = 'coder_review', verdict = 'coder_review_verdict' },
  task = { list = 'coder_task_review', verdict = 'coder_task_verdict' },
}

local function notify(msg, level)
  vim.notify('coder: ' .. msg, level or vim.log.levels.INFO, { title = 'coder' })
end

local function root()
  if st.kind == 'task' then
    return vim.fn.getcwd() -- a task's hunks are merged into the user's tree
  end
  local s = require('coder').state()
  return (s and s.cwd) or vim.fn.getcwd()
end

local function label(h)
  local status = h.verdict ~= '' and h.verdict or 'to review'
  if h.verdict == 'rejected' and h.reason ~= '' then
    status = status .. ': ' .. h.reason
  end
  local first = h.new[1] or h.old[1] or ''
  return ('[%s] -%d +%d  %s'):format(status, #h.old, #h.new, vim.trim(first))
end

-- diff_lines is hunk h as a unified diff.
local function diff_lines(h)
  local out = { '--- a/' .. h.path, '+++ b/' .. h.path, ('@@ -%d,%d +%d,%d @@'):format(h.line, #h.old, h.line, #h.new) }
  for _, l in ipairs(h.old) do
    table.insert(out, '-' .. l)
  end
  for _, l in ipairs(h.new) do
    table.insert(out, '+' .. l)
  end
  return out
end

-- HINT heads the diff view, as the other review buffers name their keys.
local HINT = '# ga keep · gr reject (a reason for the model) · q close · g? keys'

-- show puts hunk idx in the diff view.
local function show(idx)
  local h = st.hunks[idx]
  if not h or not st.diffbuf or not vim.api.nvim_buf_is_valid(st.diffbuf) then
    return
  end
  vim.bo[st.diffbuf].modifiable = true
  vim.api.nvim_buf_set_lines(st.diffbuf, 0, -1, false, vim.list_extend({ HINT }, diff_lines(h)))
  vim.bo[st.diffbuf].modifiable = false
end

-- fill replaces the quickfix list by review rv, the cursor kept.
local function fill(rv, action)
  st.n, st.hunks = rv.n, rv.hunks
  st.title = ('coder review: %s %d — %s'):format(st.kind, rv.n, rv.input)
  local items = {}
  for _, h in ipairs(rv.hunks) do
    table.insert(items, { filename = root() .. '/' .. h.path, lnum = h.line, text = label(h) })
  end
  local what = { title = st.title, items = items }
  if action == 'r' then
    what.idx = vim.fn.getqflist({ idx = 0 }).idx
  end
  vim.fn.setqflist({}, action, what)
end

-- current is the hunk index under the cursor of the quickfix window.
local function current()
  if vim.bo.buftype == 'quickfix' then
    return vim.api.nvim_win_get_cursor(0)[1]
  end
  return vim.fn.getqflist({ idx = 0 }).idx
end

local function decide(idx, keep, reason)
  local h = st.hunks[idx]
  if not h or vim.fn.getqflist({ title = 0 }).title ~= st.title then
    return notify('no coder review in the quickfix list (:Coder review)', vim.log.levels.WARN)
  end
  local rv, err = require('coder.host').request(requests[st.kind].verdict, st.n, h.id, keep, reason or '')
  if not rv then
    return notify(tostring(err), vim.log.levels.ERROR)
  end
  fill(rv, 'r')
  show(idx)
end

-- keep keeps the hunk under the cursor.
function M.keep()
  decide(current(), true, '')
end

-- reject asks for an optional reason, then rejects the hunk under the
-- cursor: the host reverts it in the file (its buffer reloads) and tells
-- the model with the next message.
function M.reject()
  local idx = current()
  local prompt = st.kind == 'task' and 'Reject this hunk; reason (optional, kept in the review): '
    or 'Reject this hunk; reason for the model (optional): '
  vim.ui.input({ prompt = prompt }, function(reason)
    if reason ~= nil then
      vim.schedule(function()
        decide(idx, false, reason)
      end)
    end
  end)
end

-- close closes the review's quickfix and diff windows.
function M.close()
  if st.diffbuf and vim.api.nvim_buf_is_valid(st.diffbuf) then
    for _, w in ipairs(vim.fn.win_findbuf(st.diffbuf)) do
      if #vim.api.nvim_list_wins() > 1 then
        pcall(vim.api.nvim_win_close, w, true)
      end
    end
  end
  vim.cmd('cclose')
end

-- map_keys maps the review's keys in buf (the quickfix list, the diff
-- view); q would record a macro, g? did nothing.
local function map_keys(buf, decides)
  local function map(lhs, fn, desc)
    vim.keymap.set('n', lhs, fn, { buffer = buf, nowait = true, silent = true, desc = 'coder: ' .. desc })
  end
  if decides then
    map('ga', M.keep, 'keep the hunk')
    map('gr', M.reject, 'reject the hunk (a reason for the model)')
  end
  map('q', M.close, 'close the review')
  local help = require('coder.config').current.keys.help
  if type(help) == 'string' and help ~= '' then
    map(help, require('coder.keyhelp').show, 'show the keys that work here')
  end
end

-- comment asks for a comment on the hunk under the cursor.
function M.comment()
  local h = st.hunks[current()]
  if not h then
    return notify('no hunk under the cursor', vim.log.levels.WARN)
  end
  local comments = require('coder.comments')
  local kept = nil
  if h.verdict == 'kept' then
    kept = true
  elseif h.verdict == 'rejected' then
    kept = false
  end
  comments.add({
    path = h.path,
    abs = root() .. '/' .. h.path,
    start = h.line,
    stop = #h.new > 1 and h.line + #h.new - 1 or 0,
    diff = comments.diff(h.path, h.line, h.line, h.old, h.new),
    kept = kept,
    review = 'turn ' .. tostring(st.n),
  })
end

-- open runs :Coder review [N].
function M.open(arg)
  local n = tonumber(arg ~= '' and arg or '0')
  if not n then
    return notify('usage: :Coder review [N] (N: the turn, as /rewind numbers them)', vim.log.levels.ERROR)
  end
  M.show('turn', n)
end

-- open_task reviews task n's change before gm merges it.
function M.open_task(n)
  M.show('task', n)
end

-- show lists the hunks of turn or task n in the quickfix window.
function M.show(kind, n)
  local rv, err = require('coder.host').request(requests[kind].list, n)
  if not rv then
    return notify(tostring(err), vim.log.levels.ERROR)
  end
  if #rv.hunks == 0 then
    return notify(('%s %d changed no lines'):format(kind, rv.n))
  end
  st.kind = kind
  fill(rv, ' ')
  vim.cmd('botright copen')
  local qfbuf = vim.api.nvim_get_current_buf()
  map_keys(qfbuf, true)
  local keys = require('coder.config').current.keys
  local opts = { buffer = qfbuf, nowait = true }
  vim.keymap.set('n', keys.review_comment, M.comment, vim.tbl_extend('force', opts, { desc = 'coder: comment on the hunk' }))
  vim.keymap.set('n', keys.review_send, require('coder.comments').send, vim.tbl_extend('force', opts, { desc = 'coder: send the waiting comments' }))
  if not (st.diffbuf and vim.api.nvim_buf_is_valid(st.diffbuf) and vim.fn.bufwinid(st.diffbuf) ~= -1) then
    local qfwin = vim.api.nvim_get_current_win()
    vim.cmd('aboveleft new')
    st.diffbuf = vim.api.nvim_get_current_buf()
    vim.bo[st.diffbuf].buftype = 'nofile'
    vim.bo[st.diffbuf].bufhidden = 'wipe'
    vim.bo[st.diffbuf].swapfile = false
    vim.bo[st.diffbuf].filetype = 'diff'
    map_keys(st.diffbuf, false)
    vim.api.nvim_set_current_win(qfwin)
  end
  vim.api.nvim_create_autocmd('CursorMoved', {
    buffer = qfbuf,
    group = vim.api.nvim_create_augroup('coder_turnreview', { clear = true }),
    callback = function()
      if vim.fn.getqflist({ title = 0 }).title == st.title then
        show(vim.api.nvim_win_get_cursor(0)[1])
      end
    end,
  })
  show(1)
end

return M
