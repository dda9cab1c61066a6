-- The chat window: a read-only transcript buffer (filetype coder) and an
-- input buffer under it. The text itself is rendered in Go; this module
-- appends it and keeps windows following the end.
local M = {}

local api = vim.api
local ns = api.nvim_create_namespace('coder_transcript')
local gutter_ns = api.nvim_create_namespace('coder_gutter')

-- The host indents a hand-over's text with this prefix per level.
local gutter = '  │ '

-- Wrapped lines in a hand-over block keep its gutter: 'breakindentopt'
-- list:-1 indents them by the prefix 'formatlistpat' matches. Before 0.12
-- that width is counted in bytes (│ is 3 bytes, 1 cell): 0.10 corrects
-- one level with shift, 0.7 (no shift with list) matches one byte less.
local function gutter_indent()
  if vim.fn.has('nvim-0.12') == 1 then
    return [[^\%(\s*│\s\)\+]], 'list:-1'
  elseif vim.fn.has('nvim-0.10') == 1 then
    return [[^\%(\s*│\s\)\+]], 'list:-1,shift:-2'
  end
  return [[^\%(\s*│\)\+]], 'list:-1'
end

-- mark_gutters draws the gutter again on every wrapped screen line of
-- the hand-over lines in [first, last) (0.10+: the text itself shows it
-- on the first screen line only).
local function mark_gutters(b, first, last)
  if vim.fn.has('nvim-0.10') == 0 then
    return
  end
  api.nvim_buf_clear_namespace(b, gutter_ns, first, last)
  for i, line in ipairs(api.nvim_buf_get_lines(b, first, last, false)) do
    local n = 0
    while line:sub(n * #gutter + 1, (n + 1) * #gutter) == gutter do
      n = n + 1
    end
    if n > 0 then
      pcall(api.nvim_buf_set_extmark, b, gutter_ns, first + i - 1, 0, {
        virt_text = { { gutter:rep(n), 'CoderGutter' } },
        virt_text_win_col = 0,
        virt_text_repeat_linebreak = true,
      })
    end
  end
end

local st = {
  tbuf = nil,
  ibuf = nil,
  twin = nil,
  iwin = nil,
  tab = nil,
  status = nil,
  inserting = false, -- the input buffer is in Insert mode
  fold_stack = {}, -- first lines of the hand-over blocks still open
  folds = {}, -- finished blocks {first, last}, applied to every transcript window
}
M.state = st

local function valid_buf(b)
  return b ~= nil and api.nvim_buf_is_valid(b)
end

local function valid_win(w)
  return w ~= nil and api.nvim_win_is_valid(w)
end

local function scratch(name, ft)
  local b = api.nvim_create_buf(false, true)
  pcall(api.nvim_buf_set_name, b, name)
  vim.bo[b].bufhidden = 'hide'
  vim.bo[b].swapfile = false
  vim.bo[b].filetype = ft
  vim.bo[b].formatlistpat = (gutter_indent())
  return b
end

-- mapped lists the plugin's mappings per buffer, so a new setup() can
-- take back keys it no longer uses.
local mapped = {}

local function map(buf, mode, lhs, rhs, desc)
  if lhs and lhs ~= false and lhs ~= '' then
    vim.keymap.set(mode, lhs, rhs, { buffer = buf, nowait = true, silent = true, desc = desc })
    mapped[buf] = mapped[buf] or {}
    table.insert(mapped[buf], { mode, lhs })
  end
end

local function set_keys()
  for buf, list in pairs(mapped) do
    if valid_buf(buf) then
      for _, m in ipairs(list) do
        pcall(vim.keymap.del, m[1], m[2], { buffer = buf })
      end
    end
  end
  mapped = {}
  local keys = require('coder.config').current.keys
  local coder = require('coder')
  if valid_buf(st.ibuf) then
    map(st.ibuf, 'n', keys.send, M.send_input, 'coder: send')
    map(st.ibuf, 'i', keys.send_insert, M.send_input, 'coder: send')
    map(st.ibuf, { 'n', 'i' }, keys.stop, coder.stop, 'coder: interrupt the turn')
    map(st.ibuf, 'n', keys.close, M.close, 'coder: close')
    map(st.ibuf, 'n', keys.help, require('coder.keyhelp').show, 'coder: show the keys that work here')
  end
  if valid_buf(st.tbuf) then
    map(st.tbuf, 'n', keys.stop, coder.stop, 'coder: interrupt the turn')
    map(st.tbuf, 'n', keys.close, M.close, 'coder: close')
    map(st.tbuf, 'n', keys.open_full, M.open_full, 'coder: open the folded text whole')
    local blocks = require('coder.codeblocks')
    map(st.tbuf, 'n', keys.yank_code, blocks.yank, 'coder: yank the code block under the cursor')
    map(st.tbuf, { 'n', 'x', 'o' }, keys.next_code, function()
      blocks.jump(1)
    end, 'coder: the next code block')
    map(st.tbuf, { 'n', 'x', 'o' }, keys.prev_code, function()
      blocks.jump(-1)
    end, 'coder: the previous code block')
    map(st.tbuf, 'n', keys.help, require('coder.keyhelp').show, 'coder: show the keys that work here')
  end
end
M.set_keys = set_keys

-- highlight_markdown highlights the transcript as Markdown, code blocks in
-- their language: with tree-sitter (languages injected) where Neovim has
-- the markdown parser, else with the Markdown syntax file (0.7), fenced
-- blocks by g:markdown_fenced_languages. The plugin's own highlights are
-- extmarks and stay on top.
function M.highlight_markdown(buf)
  if vim.fn.has('nvim-0.9') == 1 and pcall(vim.treesitter.start, buf, 'markdown') then
    return 'treesitter'
  end
  vim.bo[buf].syntax = 'markdown'
  return 'syntax'
end

-- transcript_buf returns the transcript buffer, creating it.
function M.transcript_buf()
  if not valid_buf(st.tbuf) then
    require('coder.highlights').define()
    st.tbuf = scratch('coder://transcript', 'coder')
    -- Only the program writes here: no undo history to keep. The input
    -- keeps its undo, it is where the user types.
    vim.bo[st.tbuf].undolevels = -1
    vim.bo[st.tbuf].modifiable = false
    M.highlight_markdown(st.tbuf)
    set_keys()
    -- Text appended while the chat's tab was not shown moves the cursor of
    -- a following window to the end without scrolling it: back in the tab,
    -- the window would show only the last, empty line. Put the end at the
    -- bottom of the window instead.
    api.nvim_create_autocmd('TabEnter', {
      group = api.nvim_create_augroup('CoderTranscriptView', { clear = true }),
      callback = function()
        for _, w in ipairs(api.nvim_tabpage_list_wins(0)) do
          if valid_buf(st.tbuf) and api.nvim_win_get_buf(w) == st.tbuf
            and api.nvim_win_get_cursor(w)[1] == api.nvim_buf_line_count(st.tbuf) then
            api.nvim_win_call(w, function()
              vim.cmd('normal! zb')
            end)
          end
        end
      end,
    })
  end
  return st.tbuf
end

function M.input_buf()
  if not valid_buf(st.ibuf) then
    st.ibuf = scratch('coder://input', 'coder-input')
    require('coder.complete').setup_buffer(st.ibuf)
    set_keys()
    -- The key hints follow the mode: <C-s> sends in Insert mode.
    api.nvim_create_autocmd({ 'InsertEnter', 'InsertLeave' }, {
      buffer = st.ibuf,
      callback = function(ev)
        st.inserting = ev.event == 'InsertEnter'
        M.render_status()
      end,
    })
  end
  return st.ibuf
end

function M.is_open()
  return valid_win(st.twin) or valid_win(st.iwin)
end

local function win_opts(w, fixed_height)
  local o = vim.wo[w]
  o.wrap = true
  -- Wrap at word boundaries, continuation lines keep the indentation (tool
  -- output is indented under its summary).
  o.linebreak = true
  o.breakindent = true
  o.breakindentopt = select(2, gutter_indent())
  o.number = false
  o.relativenumber = false
  o.signcolumn = 'no'
  o.foldcolumn = '0'
  o.spell = false
  o.list = false
  o.cursorline = false
  -- Hand-over blocks are manual folds (they work on Neovim 0.7).
  o.foldmethod = 'manual'
  o.foldenable = true
  if fixed_height then
    o.winfixheight = true
  else
    o.winfixwidth = true
  end
end

local function width()
  local w = require('coder.config').current.width
  if w < 1 then
    w = math.floor(vim.o.columns * w)
  end
  return math.max(20, math.floor(w))
end

-- open shows the chat window. focus: move the cursor to the input.
function M.open(focus)
  local tbuf, ibuf = M.transcript_buf(), M.input_buf()
  if M.is_open() then
    if focus and valid_win(st.iwin) then
      api.nvim_set_current_win(st.iwin)
    end
    return
  end
  local cfg = require('coder.config').current
  local prev = api.nvim_get_current_win()
  -- #buffer means the buffer the chat was opened from, then the last file
  -- the user was in.
  local context = require('coder.context')
  context.remember(api.nvim_get_current_buf())
  context.track()
  local ih = cfg.input_height
  if cfg.layout == 'float' then
    local cols, lines = vim.o.columns, vim.o.lines
    local w = math.max(20, math.floor(cols * 0.8))
    local th = math.max(3, lines - ih - 8)
    local col = math.floor((cols - w) / 2)
    st.twin = api.nvim_open_win(tbuf, false, {
      relative = 'editor', row = 1, col = col, width = w, height = th, border = 'rounded', style = 'minimal',
    })
    st.iwin = api.nvim_open_win(ibuf, false, {
      relative = 'editor', row = th + 3, col = col, width = w, height = ih, border = 'rounded', style = 'minimal',
    })
  else
    if cfg.layout == 'tab' then
      vim.cmd('tabnew')
      local empty = api.nvim_get_current_buf()
      st.tab = api.nvim_get_current_tabpage()
      st.twin = api.nvim_get_current_win()
      api.nvim_win_set_buf(st.twin, tbuf)
      if empty ~= tbuf and api.nvim_buf_get_name(empty) == '' and not vim.bo[empty].modified then
        pcall(api.nvim_buf_delete, empty, { force = true })
      end
    else
      local side = cfg.layout == 'left' and 'topleft' or 'botright'
      vim.cmd(('%s %dvsplit'):format(side, width()))
      st.twin = api.nvim_get_current_win()
      api.nvim_win_set_buf(st.twin, tbuf)
    end
    vim.cmd(('belowright %dsplit'):format(ih))
    st.iwin = api.nvim_get_current_win()
    api.nvim_win_set_buf(st.iwin, ibuf)
  end
  win_opts(st.twin, false)
  win_opts(st.iwin, true)
  for _, f in ipairs(st.folds) do
    M.make_fold(st.twin, f[1], f[2], true)
  end
  -- Show the end of the transcript.
  pcall(api.nvim_win_set_cursor, st.twin, { api.nvim_buf_line_count(tbuf), 0 })
  M.render_status()
  if focus then
    api.nvim_set_current_win(st.iwin)
  elseif valid_win(prev) then
    api.nvim_set_current_win(prev)
  end
end

function M.close()
  local cur = api.nvim_get_current_win()
  for _, w in ipairs({ st.iwin, st.twin }) do
    if valid_win(w) then
      if #api.nvim_list_wins() > 1 then
        pcall(api.nvim_win_close, w, true)
      else
        -- Last window: show an empty buffer instead of quitting Neovim.
        vim.cmd('enew')
      end
    end
  end
  st.twin, st.iwin = nil, nil
  if st.tab and api.nvim_tabpage_is_valid(st.tab) and #api.nvim_list_tabpages() > 1 then
    local wins = api.nvim_tabpage_list_wins(st.tab)
    if #wins == 1 and api.nvim_buf_get_name(api.nvim_win_get_buf(wins[1])) == '' then
      pcall(vim.cmd, 'tabclose ' .. api.nvim_tabpage_get_number(st.tab))
    end
  end
  st.tab = nil
  if valid_win(cur) then
    api.nvim_set_current_win(cur)
  end
end

function M.toggle()
  if M.is_open() then
    M.close()
  else
    M.open(true)
  end
end

-- advance returns the position after inserting s at (row, col).
local function advance(row, col, s)
  local n, last = 0, nil
  local i = 0
  while true do
    i = s:find('\n', i + 1, true)
    if not i then
      break
    end
    n, last = n + 1, i
  end
  if n == 0 then
    return row, col + #s
  end
  return row + n, #s - last
end

-- append adds chunks {text, hl} at the end of the transcript.
function M.append(chunks)
  local b = M.transcript_buf()
  local last = api.nvim_buf_line_count(b) - 1
  local lastline = api.nvim_buf_get_lines(b, last, last + 1, false)[1] or ''
  local follow = {}
  for _, w in ipairs(vim.fn.win_findbuf(b)) do
    if api.nvim_win_get_cursor(w)[1] >= last + 1 then
      table.insert(follow, w)
    end
  end
  local parts = {}
  for i, c in ipairs(chunks) do
    parts[i] = c[1]
  end
  local lines = vim.split(table.concat(parts), '\n', { plain = true })
  vim.bo[b].modifiable = true
  api.nvim_buf_set_text(b, last, #lastline, last, #lastline, lines)
  vim.bo[b].modifiable = false
  mark_gutters(b, last, -1)
  local row, col = last, #lastline
  for _, c in ipairs(chunks) do
    local s, hl = c[1], c[2]
    local erow, ecol = advance(row, col, s)
    if hl and hl ~= '' and s ~= '' then
      pcall(api.nvim_buf_set_extmark, b, ns, row, col, { end_row = erow, end_col = ecol, hl_group = hl })
    end
    row, col = erow, ecol
  end
  local count = api.nvim_buf_line_count(b)
  for _, w in ipairs(follow) do
    pcall(api.nvim_win_set_cursor, w, { count, 0 })
  end
end

-- rewrite_row replaces transcript row (0-based) of b with s, its gutter
-- and highlight hl redrawn.
local function rewrite_row(b, row, s, hl)
  vim.bo[b].modifiable = true
  api.nvim_buf_set_lines(b, row, row + 1, false, { s })
  vim.bo[b].modifiable = false
  api.nvim_buf_clear_namespace(b, ns, row, row + 1)
  mark_gutters(b, row, row + 1)
  if hl and hl ~= '' then
    pcall(api.nvim_buf_set_extmark, b, ns, row, 0, { end_row = row, end_col = #s, hl_group = hl })
  end
end

-- rewrite_last replaces the last line (a tool's "running" line becomes its
-- summary).
function M.rewrite_last(s, hl)
  local b = M.transcript_buf()
  rewrite_row(b, api.nvim_buf_line_count(b) - 1, s, hl)
end

-- A running call's line, with its streamed output below it: a mark keeps
-- its row until the call ends.
local tool_ns = api.nvim_create_namespace('coder_tool_lines')
local tool_marks = {} -- call id -> extmark id

-- mark_tool marks the transcript's last line (the call's line).
function M.mark_tool(id)
  local b = M.transcript_buf()
  local row = api.nvim_buf_line_count(b) - 1
  tool_marks[id] = api.nvim_buf_set_extmark(b, tool_ns, row, 0, {})
end

-- rewrite_tool replaces the marked line of call id with s.
function M.rewrite_tool(id, s, hl)
  local mark = tool_marks[id]
  tool_marks[id] = nil
  if not mark then
    return
  end
  local b = M.transcript_buf()
  local ok, pos = pcall(api.nvim_buf_get_extmark_by_id, b, tool_ns, mark, {})
  pcall(api.nvim_buf_del_extmark, b, tool_ns, mark)
  local row = ok and pos and pos[1]
  if not row then
    return -- the transcript was cleared meanwhile
  end
  rewrite_row(b, row, s, hl)
end

-- Folded texts: the host shows the first lines of a long answer or tool
-- output and a notice; a mark on the notice line keeps the text's id, and
-- open_full asks the host for the whole text.
local fold_ns = api.nvim_create_namespace('coder_folds')
local folds = {} -- extmark id -> { id = text id, chan = host channel }

-- mark_fold marks the notice just appended (the line above the last).
function M.mark_fold(id)
  local b = M.transcript_buf()
  local row = math.max(0, api.nvim_buf_line_count(b) - 2)
  local mark = api.nvim_buf_set_extmark(b, fold_ns, row, 0, {})
  folds[mark] = { id = id, chan = require('coder.host').state.chan }
end

-- open_full opens the folded text at or below the cursor (else the last
-- one above it) whole, in a scratch buffer in a new tab.
function M.open_full()
  local b = M.transcript_buf()
  local row = api.nvim_win_get_cursor(0)[1] - 1
  local found = api.nvim_buf_get_extmarks(b, fold_ns, { row, 0 }, -1, { limit = 1 })[1]
    or api.nvim_buf_get_extmarks(b, fold_ns, { row, 0 }, 0, { limit = 1 })[1]
  local f = found and folds[found[1]]
  if not f then
    vim.notify('coder: no folded text here', vim.log.levels.INFO, { title = 'coder' })
    return
  end
  local host = require('coder.host')
  if f.chan ~= host.state.chan then
    vim.notify('coder: that text was kept by a host that has exited', vim.log.levels.WARN, { title = 'coder' })
    return
  end
  local res, err = host.request('coder_full_text', f.id)
  if not res then
    vim.notify('coder: ' .. tostring(err), vim.log.levels.WARN, { title = 'coder' })
    return
  end
  vim.cmd('tabnew')
  local buf = api.nvim_get_current_buf()
  vim.bo[buf].buftype = 'nofile'
  vim.bo[buf].bufhidden = 'wipe'
  vim.bo[buf].swapfile = false
  pcall(api.nvim_buf_set_name, buf, ('coder://full/%d %s'):format(f.id, res.title or ''))
  api.nvim_buf_set_lines(buf, 0, -1, false, res.lines or {})
  vim.bo[buf].modifiable = false
  vim.keymap.set('n', 'q', '<cmd>tabclose<cr>', { buffer = buf, nowait = true, desc = 'coder: close the text' })
  return buf
end

-- make_fold folds lines first..last in window w; closed: leave it closed.
function M.make_fold(w, first, last, closed)
  if not valid_win(w) or last <= first then
    return
  end
  api.nvim_win_call(w, function()
    vim.wo.foldmethod = 'manual'
    vim.cmd(('silent! %d,%dfold'):format(first, last))
    if not closed then
      vim.cmd(('silent! %dfoldopen'):format(first))
    end
  end)
end

-- fold_start marks the transcript's last complete line (the hand-over
-- line) as the first line of a block.
function M.fold_start()
  local b = M.transcript_buf()
  table.insert(st.fold_stack, math.max(1, api.nvim_buf_line_count(b) - 1))
end

-- fold_end folds the innermost block, up to the last complete line.
function M.fold_end(closed)
  local first = table.remove(st.fold_stack)
  if not first then
    return
  end
  local b = M.transcript_buf()
  local last = api.nvim_buf_line_count(b) - 1
  if last <= first then
    return
  end
  table.insert(st.folds, { first, last })
  for _, w in ipairs(vim.fn.win_findbuf(b)) do
    M.make_fold(w, first, last, closed)
  end
end

-- ensure_line_start makes the transcript end with an empty line, so a new
-- host's rendering starts cleanly after a restart.
function M.ensure_line_start()
  local b = M.transcript_buf()
  local last = api.nvim_buf_line_count(b) - 1
  local lastline = api.nvim_buf_get_lines(b, last, last + 1, false)[1] or ''
  if lastline ~= '' then
    M.append({ { '\n', '' } })
  end
end

-- text returns the whole transcript (tests, :Coder yank-like uses).
function M.text()
  if not valid_buf(st.tbuf) then
    return ''
  end
  return table.concat(api.nvim_buf_get_lines(st.tbuf, 0, -1, false), '\n')
end

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
  local parts = { 'ctx ' .. tokens(s.context_tokens), s.model or '?', s.mode or '?' }
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
  if s.conversation and s.conversation ~= '' then
    table.insert(parts, '⇄ conversation ' .. s.conversation)
    table.insert(prio, 1)
  end
  return fit(parts, prio, width)
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

-- show_conversation opens a conversation's transcript (chunks {text, hl}
-- rendered by the host) in a read-only scratch buffer in a new tab.
function M.show_conversation(id, chunks)
  local name = 'coder://conversation/' .. id
  local b = vim.fn.bufnr(name)
  if b == -1 or not valid_buf(b) then
    b = scratch(name, 'coder')
    vim.bo[b].bufhidden = 'wipe'
  end
  local parts = {}
  for i, c in ipairs(chunks) do
    parts[i] = c[1]
  end
  vim.bo[b].modifiable = true
  vim.bo[b].readonly = false
  api.nvim_buf_set_lines(b, 0, -1, false, vim.split(table.concat(parts), '\n', { plain = true }))
  api.nvim_buf_clear_namespace(b, ns, 0, -1)
  local row, col = 0, 0
  for _, c in ipairs(chunks) do
    local erow, ecol = advance(row, col, c[1])
    if c[2] and c[2] ~= '' and c[1] ~= '' then
      pcall(api.nvim_buf_set_extmark, b, ns, row, col, { end_row = erow, end_col = ecol, hl_group = c[2] })
    end
    row, col = erow, ecol
  end
  mark_gutters(b, 0, -1)
  vim.bo[b].modifiable = false
  vim.bo[b].readonly = true
  -- Every scratch view closes with q (unmapped, q started a macro).
  vim.keymap.set('n', 'q', '<cmd>tabclose<cr>', { buffer = b, nowait = true, desc = 'coder: close the conversation' })
  vim.cmd('tab sbuffer ' .. b)
  win_opts(api.nvim_get_current_win(), true)
  return b
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

-- render_status shows the status above the input (the transcript window's
-- status line) and the cwd prompt on the input (winbar on 0.8+, else the
-- input window's status line). Everything is cut to the window's width.
function M.render_status()
  local has_winbar = vim.fn.has('nvim-0.8') == 1
  local global = vim.o.laststatus == 3
  local insert = st.inserting == true
  if valid_win(st.twin) then
    local status = esc(' ' .. M.status_text(status_width(st.twin) - 2))
    vim.wo[st.twin].statusline = '%#CoderStatus#' .. status .. '%='
  end
  if valid_win(st.iwin) then
    local w = status_width(st.iwin)
    if has_winbar then
      local status = global and (' ' .. M.status_text(w - 2) .. ' │') or ''
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

-- send_input sends the input buffer's text and clears it.
function M.send_input()
  local b = M.input_buf()
  local text = table.concat(api.nvim_buf_get_lines(b, 0, -1, false), '\n')
  if vim.trim(text) == '' then
    return
  end
  -- Clear only what was sent: if the host cannot start, the text stays.
  if require('coder').send(text) then
    api.nvim_buf_set_lines(b, 0, -1, false, {})
  end
end

-- add_context appends lines to the input buffer.
-- add_context puts a selection (header line "path:13-20", then the fenced
-- lines) into the input: below a blank first line for the question when
-- the input is empty, folded to its header line, with the cursor on the
-- question line in Insert mode.
function M.add_context(lines)
  local b = M.input_buf()
  local cur = api.nvim_buf_get_lines(b, 0, -1, false)
  local first
  if #cur == 1 and cur[1] == '' then
    api.nvim_buf_set_lines(b, 0, -1, false, vim.list_extend({ '' }, lines))
    first = 2
  else
    first = #cur + 1
    api.nvim_buf_set_lines(b, -1, -1, false, lines)
  end
  if valid_win(st.iwin) and api.nvim_win_get_buf(st.iwin) == b then
    M.make_fold(st.iwin, first, first + #lines - 1, true)
    api.nvim_set_current_win(st.iwin)
    api.nvim_win_set_cursor(st.iwin, { first == 2 and 1 or #cur, 0 })
    vim.cmd('startinsert!')
  end
end

return M
