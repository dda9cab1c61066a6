-- The inline assistant (:help coder-inline): `:'<,'>Coder edit
-- {instruction}` sends the selection with some lines around it to the
-- host, which asks the model outside the chat; the answer comes back as
-- hunks reviewed in the buffer itself with the approval review
-- (coder.approval): ga accepts, gr rejects the hunk under the cursor, gR
-- rejects them all, and once every hunk is decided the accepted ones are
-- put into the buffer. Nothing is written to disk: the user saves.
local M = {}

local api = vim.api

local CONTEXT = 40 -- lines of context each side
local SMALL = 60 -- a buffer this short is edited whole without a range

local next_id = 0
local asking = {} -- id -> {buf, tick, first, last, instruction}

local function notify(msg, level)
  vim.notify(msg, level or vim.log.levels.INFO, { title = 'coder' })
end

-- default_range is what :Coder edit without a range rewrites: a small
-- buffer whole, else the paragraph around the cursor.
local function default_range(buf)
  local n = api.nvim_buf_line_count(buf)
  if n <= SMALL then
    return 1, n
  end
  local row = api.nvim_win_get_cursor(0)[1]
  local lines = api.nvim_buf_get_lines(buf, 0, -1, false)
  local function blank(i)
    return vim.trim(lines[i] or '') == ''
  end
  local first, last = row, row
  while first > 1 and not blank(first - 1) do
    first = first - 1
  end
  while last < n and not blank(last + 1) do
    last = last + 1
  end
  return first, last
end

-- start runs :Coder edit {instruction} on lines line1..line2 (range 0:
-- the default range) of the current buffer.
function M.start(instruction, range, line1, line2)
  local buf = api.nvim_get_current_buf()
  local ft = vim.bo[buf].filetype
  if ft == 'coder' or ft == 'coder-input' or vim.bo[buf].buftype ~= '' and vim.bo[buf].buftype ~= 'acwrite' then
    notify('coder edit: run it in a file buffer', vim.log.levels.WARN)
    return
  end
  if not vim.bo[buf].modifiable then
    notify('coder edit: the buffer is not modifiable', vim.log.levels.WARN)
    return
  end
  instruction = vim.trim(instruction or '')
  if instruction == '' then
    vim.ui.input({ prompt = 'Coder edit: ' }, function(text)
      if text and vim.trim(text) ~= '' then
        M.start(text, range, line1, line2)
      end
    end)
    return
  end
  local first, last = line1, line2
  if not range or range == 0 then
    first, last = default_range(buf)
  end
  next_id = next_id + 1
  local id = next_id
  local tick = api.nvim_buf_get_changedtick(buf)
  asking[id] = { buf = buf, tick = tick, first = first, last = last, instruction = instruction }
  local ok = require('coder.host').notify('coder_inline', {
    id = id,
    buf = buf,
    tick = tick,
    name = api.nvim_buf_get_name(buf),
    filetype = ft,
    instruction = instruction,
    first = first,
    before = api.nvim_buf_get_lines(buf, math.max(0, first - 1 - CONTEXT), first - 1, false),
    selection = api.nvim_buf_get_lines(buf, first - 1, last, false),
    after = api.nvim_buf_get_lines(buf, last, last + CONTEXT, false),
  })
  if not ok then
    asking[id] = nil
    return
  end
  notify(('coder edit: asking the model about lines %d-%d…'):format(first, last))
end

-- stale reports why the edit cannot be shown or applied any more, or nil.
local function stale(a)
  if not api.nvim_buf_is_valid(a.buf) then
    return 'the buffer is gone'
  end
  if api.nvim_buf_get_changedtick(a.buf) ~= a.tick then
    return 'the buffer changed meanwhile; run :Coder edit again'
  end
  return nil
end

-- put replaces lines first..last of buf with lines, touching only the
-- lines that differ.
local function put(buf, first, last, lines)
  local old = api.nvim_buf_get_lines(buf, first - 1, last, false)
  local head = 0
  while head < #old and head < #lines and old[head + 1] == lines[head + 1] do
    head = head + 1
  end
  local tail = 0
  while tail < #old - head and tail < #lines - head and old[#old - tail] == lines[#lines - tail] do
    tail = tail + 1
  end
  local mid = {}
  for i = head + 1, #lines - tail do
    table.insert(mid, lines[i])
  end
  api.nvim_buf_set_lines(buf, first - 1 + head, last - tail, false, mid)
end

-- drop forgets inline edit id: the host's answer (or, while it streams,
-- the model call) is let go.
local function drop(id)
  local a = asking[id]
  asking[id] = nil
  if a and a.streaming then
    require('coder.host').notify('coder_inline_cancel')
  else
    require('coder.host').request('coder_inline_result', id, 'deny', {})
  end
end

local function answer(id, decision, accepted)
  local a = asking[id]
  if a and a.streaming then
    drop(id) -- rejected before the answer was complete
    return
  end
  asking[id] = nil
  local choices = {}
  for _, v in pairs(accepted or {}) do
    choices = v -- one path: the buffer
  end
  local lines, err = require('coder.host').request('coder_inline_result', id, decision, choices)
  if decision == 'deny' or not a then
    return
  end
  if not lines then
    notify('coder edit: ' .. tostring(err), vim.log.levels.ERROR)
    return
  end
  local why = stale(a)
  if why then
    notify('coder edit: not applied: ' .. why, vim.log.levels.WARN)
    return
  end
  put(a.buf, a.first, a.last, lines)
end

-- review shows the host's answer (the inline_review op) as hunks in the
-- buffer: while the answer streams (o.streaming), the hunks settled so
-- far, the review growing as more arrive; then the whole answer's.
function M.review(o)
  local a = asking[o.id]
  if not a then
    return
  end
  local approval = require('coder.approval')
  local why = stale(a)
  if why then
    if a.reviewing then
      approval.closed('inline-' .. o.id)
    end
    drop(o.id)
    notify('coder edit: the answer is dropped: ' .. why, vim.log.levels.WARN)
    return
  end
  a.streaming = o.streaming
  local path = o.path ~= '' and o.path or '[No Name]'
  local diffs = { { path = path, buf = a.buf, hunks = o.hunks } }
  if #(o.hunks or {}) == 0 then
    if a.reviewing then
      approval.closed('inline-' .. o.id)
    end
    drop(o.id)
    notify('coder edit: the model changed nothing')
    return
  end
  if a.reviewing then
    approval.update('inline-' .. o.id, diffs, o.streaming)
    return
  end
  a.reviewing = true
  -- The model answered: "asking the model…" no longer holds.
  vim.cmd('echo ""')
  approval.push({
    id = 'inline-' .. o.id,
    tool = 'edit',
    title = 'inline edit of ' .. path .. (':%d-%d'):format(o.first, o.last),
    reason = o.instruction,
    paths = { path },
    diffs = diffs,
    streaming = o.streaming,
    inline = function(decision, accepted)
      answer(o.id, decision, accepted)
    end,
  })
end

-- failed: the host could not get an answer.
function M.failed(o)
  local a = asking[o.id]
  if not a then
    return -- stopped with :Coder stop
  end
  asking[o.id] = nil
  if a.reviewing then
    require('coder.approval').closed('inline-' .. o.id) -- failed while it streamed
  end
  notify(o.msg, vim.log.levels.ERROR)
end

-- cancel stops the inline edits still waiting for the model (:Coder
-- stop); one under review stays until it is decided.
function M.cancel()
  local any = false
  for id, a in pairs(asking) do
    if not a.reviewing then
      asking[id] = nil
      any = true
    end
  end
  if any then
    require('coder.host').notify('coder_inline_cancel')
  end
end

-- pending reports whether an inline edit waits for the model (tests,
-- statuslines).
function M.pending()
  return next(asking) ~= nil
end

return M
