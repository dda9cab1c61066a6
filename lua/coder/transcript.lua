-- The transcript: the read-only buffer (filetype coder) the chat shows
-- above the input. The text itself is rendered in Go; this module appends
-- it, rewrites a tool's line when the call ends, folds hand-over blocks and
-- keeps windows following the end. The windows are coder.ui's.
local M = {}

local api = vim.api
local ui = require('coder.ui')
local st = ui.state
local valid_buf = ui.valid_buf
local ns = api.nvim_create_namespace('coder_transcript')
local gutter_ns = api.nvim_create_namespace('coder_gutter')

-- The host indents a hand-over's text with this prefix per level.
local gutter = '  │ '

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
    st.tbuf = ui.scratch('coder://transcript', 'coder')
    -- Only the program writes here: no undo history to keep. The input
    -- keeps its undo, it is where the user types.
    vim.bo[st.tbuf].undolevels = -1
    vim.bo[st.tbuf].modifiable = false
    M.highlight_markdown(st.tbuf)
    ui.set_keys()
    -- Back on the last line, the user has seen what arrived below.
    api.nvim_create_autocmd('CursorMoved', {
      buffer = st.tbuf,
      callback = function()
        if st.unseen and api.nvim_get_current_win() == st.twin
          and api.nvim_win_get_cursor(0)[1] == api.nvim_buf_line_count(st.tbuf) then
          M.seen()
        end
      end,
    })
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

-- seen drops the cue that output arrived below the chat's transcript
-- window (the user is back at the end).
function M.seen()
  if st.unseen then
    st.unseen, st.unseen_from = nil, nil
    require('coder.statusline').render_status()
  end
end

-- count_unseen updates the cue after an append to the transcript b, whose
-- line count was before: the lines from the one the output started on
-- to the end are new to a chat window the user moved up in.
local function count_unseen(b, before, followed)
  if followed or not ui.valid_win(st.twin) then
    M.seen()
    return
  end
  st.unseen_from = st.unseen_from or before
  local n = api.nvim_buf_line_count(b) - st.unseen_from + 1
  if n ~= st.unseen then
    st.unseen = n
    require('coder.statusline').render_status()
  end
end

-- split_lines splits s at each newline. Not vim.split: under load on
-- Neovim 0.7.2 its argument check failed now and then inside this
-- handler ("opt[0]: expected table, got nil"), and a streamed batch of
-- the answer was lost.
local function split_lines(s)
  local out, i = {}, 1
  while true do
    local j = s:find('\n', i, true)
    if not j then
      out[#out + 1] = s:sub(i)
      return out
    end
    out[#out + 1] = s:sub(i, j - 1)
    i = j + 1
  end
end

-- append adds chunks {text, hl} at the end of the transcript.
function M.append(chunks)
  local b = M.transcript_buf()
  local last = api.nvim_buf_line_count(b) - 1
  local lastline = api.nvim_buf_get_lines(b, last, last + 1, false)[1] or ''
  local follow = {}
  local chat_follows = false
  for _, w in ipairs(vim.fn.win_findbuf(b)) do
    if api.nvim_win_get_cursor(w)[1] >= last + 1 then
      table.insert(follow, w)
      chat_follows = chat_follows or w == st.twin
    end
  end
  local parts = {}
  for i, c in ipairs(chunks) do
    parts[i] = c[1]
  end
  local lines = split_lines(table.concat(parts))
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
  count_unseen(b, last + 1, chat_follows)
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

-- mark_appended marks, in ns, the line just appended (the line above the
-- last, which is empty).
local function mark_appended(ns, opts)
  local b = M.transcript_buf()
  return api.nvim_buf_set_extmark(b, ns, math.max(0, api.nvim_buf_line_count(b) - 2), 0, opts)
end

-- mark_fold marks the notice just appended.
function M.mark_fold(id)
  folds[mark_appended(fold_ns, {})] = { id = id, chan = require('coder.host').state.chan }
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

-- Turn summaries: a mark on the line ending a turn that changed files
-- keeps the turn's number (and its session: /new starts numbering again);
-- review_turn opens that turn's review.
local review_ns = api.nvim_create_namespace('coder_turn_reviews')
local reviews = {} -- extmark id -> { n = turn, session = session id }

-- mark_review marks the summary just appended and names the key at its
-- end.
function M.mark_review(n)
  local key = require('coder.config').current.keys.review_turn
  local opts = {}
  if type(key) == 'string' and key ~= '' then
    opts.virt_text = { { '  ' .. key .. ' reviews it', 'CoderNotice' } }
  end
  reviews[mark_appended(review_ns, opts)] = { n = n, session = require('coder.host').state.session_id }
end

-- review_turn reviews the turn whose summary is on the cursor's line or
-- the first below it (the end of the turn the cursor is in).
function M.review_turn()
  local b = M.transcript_buf()
  local row = api.nvim_win_get_cursor(0)[1] - 1
  local found = api.nvim_buf_get_extmarks(b, review_ns, { row, 0 }, -1, { limit = 1 })[1]
  local r = found and reviews[found[1]]
  if not r then
    vim.notify('coder: no turn that changed files at or below the cursor', vim.log.levels.INFO, { title = 'coder' })
    return
  end
  if r.session ~= require('coder.host').state.session_id then
    vim.notify('coder: that turn belongs to another session', vim.log.levels.WARN, { title = 'coder' })
    return
  end
  require('coder.turnreview').open(tostring(r.n))
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
    ui.make_fold(w, first, last, closed)
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

-- has_text reports whether the transcript buffer exists and holds text.
function M.has_text()
  if not valid_buf(st.tbuf) then
    return false
  end
  return api.nvim_buf_line_count(st.tbuf) > 1 or (api.nvim_buf_get_lines(st.tbuf, 0, 1, false)[1] or '') ~= ''
end

-- text returns the whole transcript (tests, :Coder yank-like uses).
function M.text()
  if not valid_buf(st.tbuf) then
    return ''
  end
  return table.concat(api.nvim_buf_get_lines(st.tbuf, 0, -1, false), '\n')
end

-- show_conversation opens a conversation's transcript (chunks {text, hl}
-- rendered by the host) in a read-only scratch buffer in a new tab.
function M.show_conversation(id, chunks)
  local name = 'coder://conversation/' .. id
  local b = vim.fn.bufnr(name)
  if b == -1 or not valid_buf(b) then
    b = ui.scratch(name, 'coder')
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
  ui.win_opts(api.nvim_get_current_win(), true)
  return b
end

return M
