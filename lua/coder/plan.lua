-- The plan hand-off of plan mode (propose_plan): the agent's plan opens in
-- a Markdown buffer the user edits freely (a float with layout = 'float',
-- a split otherwise). A comment header names the keys and, for a revised
-- plan, shows what changed since the previous one; whatever the user
-- leaves below it is the plan the agent gets. Lua only reports the
-- choice: the host switches the mode on it. One plan at a time; later
-- requests queue.
local M = {}

local api = vim.api
local ns = api.nvim_create_namespace('coder_plan')

local cur = nil

local function keys()
  return require('coder.config').current.keys
end

-- choices are the answers in key order: config key, decision, label.
local choices = {
  { 'plan_approve', 'approve', 'approve, edits ask' },
  { 'plan_auto_edit', 'approve_auto_edit', 'approve, auto-edit' },
  { 'plan_revise', 'keep_planning', 'keep planning (comment)' },
  { 'plan_cancel', 'deny', 'cancel' },
}

-- help_lines lists the keys of the plan buffer.
function M.help_lines()
  local k = keys()
  local lines = {}
  for _, c in ipairs(choices) do
    if k[c[1]] then
      table.insert(lines, ('%-6s %s'):format(k[c[1]], c[3]))
    end
  end
  if k.help then
    table.insert(lines, ('%-6s %s'):format(k.help, 'these keys'))
  end
  return lines
end

-- header is the comment block above the plan. A line of the diff that
-- would close the comment is defused.
local function header(req)
  local k = keys()
  local parts = {}
  for _, c in ipairs(choices) do
    if k[c[1]] then
      table.insert(parts, k[c[1]] .. ' ' .. c[3])
    end
  end
  if k.help then
    table.insert(parts, k.help .. ' help')
  end
  local title = 'coder plan'
  if (req.label or '') ~= '' then
    title = title .. ' (⚑ ' .. req.label .. ')' -- a task's, or the chat's while a task is shown
  end
  if (req.plan.summary or '') ~= '' then
    title = title .. ': ' .. req.plan.summary:gsub('\n', ' ')
  end
  local lines = {
    '<!-- ' .. title,
    '     Edit freely: what you leave below this comment is the plan the agent gets.',
    '     ' .. table.concat(parts, ' · '),
  }
  if req.plan.revised then
    table.insert(lines, '     Revised plan: changes since the previous one:')
    for _, l in ipairs(req.plan.diff or {}) do
      table.insert(lines, '     ' .. l:gsub('%-%->', '-- >'))
    end
  end
  table.insert(lines, '-->')
  return lines
end

-- plan_text is the buffer without the header, as long as the header is
-- as it was put there.
local function plan_text()
  local lines = api.nvim_buf_get_lines(cur.buf, 0, -1, false)
  local n = #cur.header
  local same = #lines >= n
  for i = 1, n do
    same = same and lines[i] == cur.header[i]
  end
  if same then
    lines = vim.list_slice(lines, n + 1)
  end
  return vim.trim(table.concat(lines, '\n'))
end

local function teardown()
  if not cur then
    return
  end
  local c = cur
  cur = nil
  require('coder.pending').close_float(c)
end

local function highlight(buf, hdr)
  for i, l in ipairs(hdr) do
    local group = 'CoderNotice'
    if i == 1 then
      group = 'CoderApprovalTitle'
    elseif l:match('^     %+') then
      group = 'CoderDiffAdd'
    elseif l:match('^     %-') then
      group = 'CoderDiffDelete'
    elseif l:match('^     @@') then
      group = 'CoderDiffHunk'
    end
    pcall(api.nvim_buf_set_extmark, buf, ns, i - 1, 0, { end_col = #l, hl_group = group })
  end
end

-- open_win shows buf as the layout wants: a float over a floating chat,
-- else a split across the top of the tab. focus: the cursor goes there.
local function open_win(buf, height, focus)
  if require('coder.config').current.layout == 'float' then
    local w = math.min(100, vim.o.columns - 4)
    local h = math.min(height, vim.o.lines - 6)
    return api.nvim_open_win(buf, focus, {
      relative = 'editor',
      width = w,
      height = h,
      row = math.max(0, math.floor((vim.o.lines - h) / 2) - 1),
      col = math.max(0, math.floor((vim.o.columns - w) / 2)),
      border = 'rounded',
      zindex = 100, -- above the chat's floats
    })
  end
  local prev = api.nvim_get_current_win()
  if api.nvim_win_get_config(prev).relative ~= '' then
    -- A float cannot be split: split a window of the tab instead.
    for _, w in ipairs(api.nvim_tabpage_list_wins(0)) do
      if api.nvim_win_get_config(w).relative == '' then
        api.nvim_set_current_win(w)
        break
      end
    end
  end
  vim.cmd(('topleft %dsplit'):format(math.max(3, math.min(height, math.floor(vim.o.lines / 2)))))
  local win = api.nvim_get_current_win()
  api.nvim_win_set_buf(win, buf)
  if not focus then
    api.nvim_set_current_win(prev)
  end
  return win
end

local function show(req)
  cur = { req = req, prev = api.nvim_get_current_win(), header = header(req) }
  local buf = api.nvim_create_buf(false, true)
  cur.buf = buf
  vim.bo[buf].bufhidden = 'wipe'
  local text = vim.split(req.plan.text or '', '\n', { plain = true })
  local lines = vim.list_extend(vim.deepcopy(cur.header), text)
  api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].filetype = 'markdown'
  highlight(buf, cur.header)
  local k = keys()
  local function bmap(lhs, fn, desc)
    if lhs then
      vim.keymap.set('n', lhs, fn, { buffer = buf, nowait = true, silent = true, desc = 'coder plan: ' .. desc })
    end
  end
  for _, c in ipairs(choices) do
    local decision = c[2]
    bmap(k[c[1]], function()
      if decision == 'keep_planning' then
        M.ask_comment()
      else
        M.answer(decision)
      end
    end, c[3])
  end
  bmap(k.help, function()
    local chunks = {}
    for _, l in ipairs(M.help_lines()) do
      table.insert(chunks, { l .. '\n' })
    end
    api.nvim_echo(chunks, false, {})
  end, 'keys')
  -- The cursor moves there from Normal mode only: text typed ahead in
  -- Insert mode must not land in the plan.
  local mode = api.nvim_get_mode()
  local focus = require('coder.config').current.focus_approval and mode.mode == 'n' and not mode.blocking
  cur.win = open_win(buf, #lines + 1, focus)
  vim.wo[cur.win].wrap = true
  -- The cursor starts on the plan, below the header.
  pcall(api.nvim_win_set_cursor, cur.win, { math.min(#lines, #cur.header + 1), 0 })
  -- Closing the window (:q) cancels, as an unanswered plan would leave
  -- the agent waiting for good.
  local id = req.id
  api.nvim_create_autocmd('WinClosed', {
    pattern = tostring(cur.win),
    once = true,
    callback = function()
      vim.schedule(function()
        if cur and cur.req.id == id then
          M.answer('deny')
        end
      end)
    end,
  })
end

local pending = require('coder.pending').new({
  shown = function()
    return cur and cur.req.id
  end,
  show = show,
  teardown = teardown,
})

-- push queues a plan request from the host; closed drops one the host
-- resolved on its own (interrupted turn); reset drops everything (the
-- host died).
M.push, M.next, M.closed, M.reset = pending.push, pending.next, pending.closed, pending.reset

-- ask_comment asks for the "keep planning" comment on an input line; an
-- input left with <Esc> answers nothing.
function M.ask_comment()
  vim.ui.input({ prompt = 'Keep planning — what should change? ' }, function(comment)
    if comment ~= nil then
      M.answer('keep_planning', comment)
    end
  end)
end

-- answer sends the user's choice with the plan as the buffer holds it.
function M.answer(decision, comment)
  if not cur then
    return
  end
  local id, text = cur.req.id, plan_text()
  local host = require('coder.host')
  if host.running() then
    host.notify('coder_answer_plan', id, decision, text, comment or '')
  end
  teardown()
  M.next()
end

-- current returns the plan shown now (tests, statuslines).
function M.current()
  if not cur then
    return nil
  end
  return { id = cur.req.id, win = cur.win, buf = cur.buf, header = #cur.header, queued = pending.len() }
end

return M
