-- The chat's status lines: the status above the input (context tokens,
-- model, mode, the last turn), the prompt on the input (working directory,
-- the conversation input goes to) and the input's key hints, each cut to
-- its window's width. The windows are coder.ui's.
local M = {}

local api = vim.api
local ui = require('coder.ui')
local st = ui.state
local valid_win = ui.valid_win

local function tilde(p)
  return p and vim.fn.fnamemodify(p, ':~') or vim.fn.fnamemodify(vim.fn.getcwd(), ':~')
end

local function tokens(n)
  n = n or 0
  if n >= 1000 then
    return ('%.1fk'):format(n / 1000)
  end
  return tostring(n)
end

-- fit joins parts with ' · ' and drops the parts with the lowest
-- priority (the highest number in prio) until the text fits width cells.
local function fit(parts, prio, width)
  local keep = {}
  for i = 1, #parts do
    keep[i] = true
  end
  local function text()
    local out = {}
    for i, p in ipairs(parts) do
      if keep[i] then
        table.insert(out, p)
      end
    end
    return table.concat(out, ' · ')
  end
  while width and vim.fn.strdisplaywidth(text()) > width do
    local worst
    for i = 1, #parts do
      if keep[i] and (not worst or (prio[i] or 0) > (prio[worst] or 0)) then
        worst = i
      end
    end
    if not worst or (prio[worst] or 0) == 0 then
      break
    end
    keep[worst] = false
  end
  return text()
end

-- status_text is the one-line status: context tokens, model, mode. width:
-- the cells it may take; the model, then the context size are left out
-- when they do not fit.
function M.status_text(width)
  local s = st.status
  if not s then
    if require('coder.host').running() then
      return 'coder: starting…'
    end
    return 'coder: not running'
  end
  if s.error then
    -- The session could not open (a broken configuration): the chat says
    -- why and how to go on.
    return 'coder: ✗ ' .. s.error
  end
  local ctx = 'ctx ' .. tokens(s.context_tokens)
  if (s.context_window or 0) > 0 then
    -- The share of the window (:help coder-context-report).
    ctx = ctx .. (' %d%%'):format(math.floor(100 * (s.context_tokens or 0) / s.context_window + 0.5))
  end
  local parts = { ctx, s.model or '?', s.mode or '?' }
  local prio = { 2, 3, 0 }
  -- The last turn's tokens in/out and the share of the prompt the
  -- provider's cache served (and its reported cost): dropped first.
  local turn = type(s.turn) == 'table' and s.turn or nil
  if turn then
    local t = ('↑%s ↓%s'):format(tokens(turn['in']), tokens(turn.out))
    if (turn.cached or 0) > 0 then
      t = t .. (' cache %d%%'):format(math.floor((turn.cache_share or 0) * 100 + 0.5))
    end
    if (turn.cost or 0) > 0 then
      t = t .. (' $%.4f'):format(turn.cost)
    end
    table.insert(parts, 2, t)
    table.insert(prio, 2, 4)
  end
  if s.demo then
    table.insert(parts, 'DEMO')
    table.insert(prio, 1)
  end
  if s.busy then
    table.insert(parts, '● working')
    table.insert(prio, 0)
  end
  -- Input sent during the turn waits for its end; the transcript says so
  -- under the answer once it has streamed.
  if (s.queued or 0) > 0 then
    table.insert(parts, ('⧗ %d queued'):format(s.queued))
    table.insert(prio, 0)
  end
  if s.conversation and s.conversation ~= '' then
    table.insert(parts, '⇄ conversation ' .. s.conversation)
    table.insert(prio, 1)
  end
  -- The transcript shows a task's session, and the tasks at work.
  if st.shown_task and st.shown_task ~= '' then
    table.insert(parts, 1, '⚑ ' .. st.shown_task)
    table.insert(prio, 1, 0)
  end
  if st.tasks_segment and st.tasks_segment ~= '' then
    table.insert(parts, st.tasks_segment)
    table.insert(prio, 1)
  end
  return fit(parts, prio, width)
end

-- tasks_text is the tasks at work ("⚑ 2 running · 1 waiting"; '' none),
-- for a status line of the user's own.
function M.tasks_text()
  return st.tasks_segment or ''
end

-- set_tasks takes the host's tasks op: segment and/or shown.
function M.set_tasks(o)
  if o.segment ~= nil then
    st.tasks_segment = o.segment
  end
  if o.shown ~= nil then
    st.shown_task = o.shown
  end
  M.render_status()
end

-- short_path is p as "~/…/proj": the directory's name with its place.
local function short_path(p)
  local full = tilde(p)
  local name = vim.fn.fnamemodify(full, ':t')
  if name == '' or full == name or full == '~/' .. name or full == '/' .. name then
    return full
  end
  return (full:sub(1, 1) == '~' and '~/…/' or '…/') .. name
end

-- prompt_text is the input's prompt: the working directory and, always,
-- the conversation the input goes to. width, when given, is the room it
-- has: the path shortens ("~/…/proj"), then goes, never the target.
function M.prompt_text(width)
  local target = st.status and st.status.target or ''
  local tag = target ~= '' and (' [conversation ' .. target .. ']') or ''
  local cwd = st.status and st.status.cwd or nil
  for _, path in ipairs({ tilde(cwd), short_path(cwd) }) do
    local s = path .. tag .. ' ❯'
    if not width or vim.fn.strdisplaywidth(s) <= width then
      return s
    end
  end
  return vim.trim(tag .. ' ❯')
end

-- hints lists the input keys; insert: the keys that work in Insert mode.
-- width: the cells it may take (the close and stop keys go first).
function M.hints(insert, width)
  local k = require('coder.config').current.keys
  local parts, prio = {}, {}
  local pairs_ = { { insert and k.send_insert or k.send, 'send', 0 }, { k.stop, 'stop', 1 } }
  if not insert then
    table.insert(pairs_, { k.close, 'close', 2 })
  end
  for _, p in ipairs(pairs_) do
    if p[1] then
      table.insert(parts, p[1] .. ' ' .. p[2])
      table.insert(prio, p[3])
    end
  end
  return fit(parts, prio, width)
end

local function esc(s)
  return (s:gsub('%%', '%%%%'))
end

-- status_width is the width of w's status line.
local function status_width(w)
  if vim.o.laststatus == 3 then
    return vim.o.columns
  end
  return api.nvim_win_get_width(w)
end

-- unseen_text is the cue that output arrived below a transcript window
-- the user moved up in ("" when there is none).
function M.unseen_text()
  local n = st.unseen or 0
  if n <= 0 then
    return ''
  end
  return ('↓ %d new line%s '):format(n, n == 1 and '' or 's')
end

-- render_status shows the status above the input (the transcript window's
-- status line) and the cwd prompt on the input (winbar on 0.8+, else the
-- input window's status line). Everything is cut to the window's width;
-- the new-output cue goes first.
function M.render_status()
  local has_winbar = vim.fn.has('nvim-0.8') == 1
  local global = vim.o.laststatus == 3
  local insert = st.inserting == true
  local cue = M.unseen_text()
  local cue_hl = cue ~= '' and ('%#CoderUnseen#' .. esc(' ' .. cue)) or ''
  if valid_win(st.twin) then
    local w = status_width(st.twin) - 2 - vim.fn.strdisplaywidth(cue)
    vim.wo[st.twin].statusline = cue_hl .. '%#CoderStatus#' .. esc(' ' .. M.status_text(w)) .. '%='
  end
  if valid_win(st.iwin) then
    local w = status_width(st.iwin)
    if has_winbar then
      local status = global and (' ' .. cue .. M.status_text(w - 2 - vim.fn.strdisplaywidth(cue)) .. ' │') or ''
      local prompt = ' ' .. M.prompt_text(w - vim.fn.strdisplaywidth(status) - 2)
      vim.wo[st.iwin].winbar = '%#CoderPrompt#' .. esc(status .. prompt) .. '%<'
      vim.wo[st.iwin].statusline = '%#CoderStatus#' .. esc(' ' .. M.hints(insert, w - 2))
    else
      local hints = M.hints(insert, w - 2)
      local prompt = ' ' .. M.prompt_text(w - vim.fn.strdisplaywidth(hints) - 3)
      vim.wo[st.iwin].statusline = '%#CoderPrompt#' .. esc(prompt) .. '%=%#CoderStatus#' .. esc(hints .. ' ')
    end
  end
end

function M.set_status(s)
  st.status = s
  M.render_status()
end

return M
