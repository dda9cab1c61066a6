-- The chat window: the transcript (coder.transcript) with the input
-- (coder.input) under it, their status lines (coder.statusline). This
-- module lays the windows out, opens and closes them, maps the chat's keys
-- and holds the state the parts share.
local M = {}

local api = vim.api

local st = {
  tbuf = nil,
  ibuf = nil,
  twin = nil,
  iwin = nil,
  tab = nil,
  status = nil,
  inserting = false, -- the input buffer is in Insert mode
  unseen = nil, -- lines of output that arrived below the transcript window the user moved up in
  unseen_from = nil, -- the first of them
  fold_stack = {}, -- first lines of the hand-over blocks still open
  folds = {}, -- finished blocks {first, last}, applied to every transcript window
}
M.state = st

-- valid_buf, valid_win: shared with the parts and the approval float.
function M.valid_buf(b)
  return b ~= nil and api.nvim_buf_is_valid(b)
end

function M.valid_win(w)
  return w ~= nil and api.nvim_win_is_valid(w)
end
local valid_buf, valid_win = M.valid_buf, M.valid_win

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

-- scratch makes one of the chat's hidden scratch buffers.
function M.scratch(name, ft)
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
    map(st.tbuf, 'n', keys.review_turn, require('coder.transcript').review_turn, 'coder: review the turn ending at or below the cursor')
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

function M.is_open()
  return valid_win(st.twin) or valid_win(st.iwin)
end

-- visible_here reports whether the chat shows in a window of the current
-- tab page.
function M.visible_here()
  for _, w in ipairs(api.nvim_tabpage_list_wins(0)) do
    local b = api.nvim_win_get_buf(w)
    if b == st.tbuf or b == st.ibuf then
      return true
    end
  end
  return false
end

-- win_opts sets the options of a chat window (or a conversation's view).
function M.win_opts(w, fixed_height)
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

local function width()
  local w = require('coder.config').current.width
  if w < 1 then
    w = math.floor(vim.o.columns * w)
  end
  return math.max(20, math.floor(w))
end

-- follow_resize keeps a side chat at its configured width when the
-- terminal is resized: 'winfixwidth' alone would keep the old width and
-- squeeze the code windows.
local function follow_resize()
  api.nvim_create_autocmd('VimResized', {
    group = api.nvim_create_augroup('CoderChatResize', { clear = true }),
    callback = function()
      local layout = require('coder.config').current.layout
      if (layout == 'right' or layout == 'left') and valid_win(st.twin) then
        pcall(api.nvim_win_set_width, st.twin, width())
      end
    end,
  })
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
      follow_resize()
      api.nvim_win_set_buf(st.twin, tbuf)
    end
    vim.cmd(('belowright %dsplit'):format(ih))
    st.iwin = api.nvim_get_current_win()
    api.nvim_win_set_buf(st.iwin, ibuf)
  end
  M.win_opts(st.twin, false)
  M.win_opts(st.iwin, true)
  require('coder.chatguard').attach()
  for _, f in ipairs(st.folds) do
    M.make_fold(st.twin, f[1], f[2], true)
  end
  -- Show the end of the transcript: nothing below is unseen.
  pcall(api.nvim_win_set_cursor, st.twin, { api.nvim_buf_line_count(tbuf), 0 })
  st.unseen, st.unseen_from = nil, nil
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

-- The entry points the host and the tests reach through coder.ui stay
-- reachable here.
local parts = {
  transcript = { 'transcript_buf', 'open_full', 'text' },
  input = { 'input_buf', 'send_input' },
  statusline = { 'status_text', 'prompt_text', 'render_status' },
}
for part, names in pairs(parts) do
  for _, name in ipairs(names) do
    M[name] = function(...)
      return require('coder.' .. part)[name](...)
    end
  end
end

return M
