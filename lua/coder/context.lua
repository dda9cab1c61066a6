-- Editor context for the chat: when a message is sent, the `#` mentions
-- only the editor can answer (#buffer, #buffers, #selection,
-- #diagnostics, #quickfix, #messages, #terminal) are gathered here and
-- sent with it; the host resolves `@path` and `#diff` itself, attaches
-- everything after the user's words and states every cut. An unknown
-- `#word` stays plain text. See :help coder-context.
local M = {}

local api = vim.api

-- cap is how much text one item may carry to the host (the host cuts
-- further, to its per-item cap, and says how much of size was sent).
M.cap = 256 * 1024
-- max_buffers bounds #buffers; max_entries bounds #diagnostics and
-- #quickfix; terminal_lines is how much of a terminal #terminal sends.
M.max_buffers = 20
M.max_entries = 500
M.terminal_lines = 200

-- names are the mentions with their one-line descriptions (completion).
M.names = {
  { 'buffer', 'the buffer the chat came from, unsaved edits included (#buffer:NAME another)' },
  { 'buffers', 'every listed file buffer' },
  { 'selection', 'the last visual selection, with its path and lines' },
  { 'diagnostics', 'the diagnostics of #buffer (#diagnostics:all every buffer)' },
  { 'quickfix', 'the quickfix list, each entry with its line' },
  { 'diff', "the workspace's uncommitted git diff" },
  { 'messages', ':messages' },
  { 'terminal', 'recent output of the last terminal buffer' },
}

local st = { source = nil, group = nil }
M.state = st

local function chat_buf(b)
  local ft = vim.bo[b].filetype
  return ft == 'coder' or ft == 'coder-input' or ft == 'coder-keys' or ft == 'coder-approval'
end

-- file_buf reports whether b is a file buffer a mention may name.
local function file_buf(b)
  return api.nvim_buf_is_valid(b) and vim.bo[b].buftype == '' and not chat_buf(b)
end

-- remember records b as the buffer #buffer means, if it is a file buffer.
function M.remember(b)
  if b and file_buf(b) then
    st.source = b
  end
end

-- track follows the windows the user works in from now on (set up when
-- the chat first opens).
function M.track()
  if st.group then
    return
  end
  st.group = api.nvim_create_augroup('CoderContextSource', { clear = true })
  api.nvim_create_autocmd({ 'BufEnter', 'WinEnter' }, {
    group = st.group,
    callback = function(ev)
      M.remember(ev.buf)
    end,
  })
end

local function rel(name)
  if name == '' then
    return '[No Name]'
  end
  return vim.fn.fnamemodify(name, ':.')
end

-- text_of returns up to M.cap bytes of lines first..last (1-based,
-- inclusive) of b, cut at a line end, and the size of the whole range.
local function text_of(b, first, last)
  local size = api.nvim_buf_get_offset(b, last) - api.nvim_buf_get_offset(b, first - 1)
  local out, bytes = {}, 0
  local row = first - 1
  while row < last and bytes <= M.cap do
    local chunk = api.nvim_buf_get_lines(b, row, math.min(last, row + 1000), false)
    for _, l in ipairs(chunk) do
      if bytes + #l + 1 > M.cap then
        bytes = M.cap + 1
        break
      end
      table.insert(out, l)
      bytes = bytes + #l + 1
    end
    row = row + 1000
  end
  local text = #out > 0 and (table.concat(out, '\n') .. '\n') or ''
  return text, size
end

local function item(source, b, text, size)
  local it = { source = source, path = rel(api.nvim_buf_get_name(b)), text = text, lines = select(2, text:gsub('\n', '')) }
  local ft = vim.bo[b].filetype
  if ft ~= '' then
    it.filetype = ft
  end
  if size and size > #text then
    it.size = size
  end
  if vim.bo[b].modified then
    it.notes = { 'unsaved edits included' }
  end
  return it
end

-- find_buffer finds the listed buffer NAME: its number, its path as
-- shown, its file name, or a unique part of its path.
local function find_buffer(name)
  local n = tonumber(name)
  if n and api.nvim_buf_is_valid(n) then
    return n
  end
  local parts = {}
  for _, b in ipairs(api.nvim_list_bufs()) do
    if vim.bo[b].buflisted and file_buf(b) then
      local full = api.nvim_buf_get_name(b)
      if rel(full) == name or full == name or vim.fn.fnamemodify(full, ':t') == name then
        return b
      end
      if full:find(name, 1, true) then
        table.insert(parts, b)
      end
    end
  end
  if #parts == 1 then
    return parts[1]
  end
  return nil, #parts > 1 and ('%d buffers match "%s"; name it more fully'):format(#parts, name) or nil
end

-- source_buf is the buffer #buffer means: the last file buffer the user
-- was in before the chat.
local function source_buf()
  if st.source and file_buf(st.source) then
    return st.source
  end
end

local gather = {}

function gather.buffer(arg)
  local b, why
  if arg ~= '' then
    b, why = find_buffer(arg)
    if not b then
      return { source = '#buffer', path = arg, error = why or 'no listed buffer is named ' .. arg }
    end
  else
    b = source_buf()
    if not b then
      return { source = '#buffer', error = 'no file buffer to attach: open a file, then the chat' }
    end
  end
  if not api.nvim_buf_is_loaded(b) then
    vim.fn.bufload(b)
  end
  local text, size = text_of(b, 1, api.nvim_buf_line_count(b))
  return item('#buffer', b, text, size)
end

function gather.buffers()
  local out = {}
  local skipped = 0
  for _, b in ipairs(api.nvim_list_bufs()) do
    if vim.bo[b].buflisted and file_buf(b) and api.nvim_buf_get_name(b) ~= '' and api.nvim_buf_is_loaded(b) then
      if #out < M.max_buffers then
        local text, size = text_of(b, 1, api.nvim_buf_line_count(b))
        table.insert(out, item('#buffers', b, text, size))
      else
        skipped = skipped + 1
      end
    end
  end
  if #out == 0 then
    return { { source = '#buffers', error = 'no listed file buffers' } }
  end
  if skipped > 0 then
    local last = out[#out]
    last.notes = last.notes or {}
    table.insert(last.notes, ('%d more buffers left out (at most %d)'):format(skipped, M.max_buffers))
  end
  return out
end

function gather.selection()
  local b = source_buf()
  if not b then
    return { source = '#selection', error = 'no file buffer with a selection' }
  end
  local s, e = api.nvim_buf_get_mark(b, '<'), api.nvim_buf_get_mark(b, '>')
  if s[1] == 0 or e[1] == 0 then
    return { source = '#selection', path = rel(api.nvim_buf_get_name(b)), error = 'no visual selection in this buffer yet' }
  end
  local first, last = math.min(s[1], e[1]), math.max(s[1], e[1])
  last = math.min(last, api.nvim_buf_line_count(b))
  local text, size = text_of(b, first, last)
  local it = item('#selection', b, text, size)
  it.range = first .. '-' .. last
  return it
end

local severity = { 'ERROR', 'WARN', 'INFO', 'HINT' }

local function line_text(b, lnum)
  if api.nvim_buf_is_loaded(b) then
    return (api.nvim_buf_get_lines(b, lnum - 1, lnum, false)[1] or '')
  end
  return ''
end

-- diagnostic_lines formats diagnostics of one buffer, at most max of them.
local function diagnostic_lines(list, max)
  local out = {}
  for i, d in ipairs(list) do
    if i > max then
      table.insert(out, ('… %d more left out (at most %d)'):format(#list - max, M.max_entries))
      break
    end
    table.insert(out, ('%s line %d:%d%s: %s'):format(severity[d.severity] or '?', d.lnum + 1, d.col + 1,
      d.source and (' [' .. d.source .. ']') or '', (d.message or ''):gsub('\n', ' ')))
    table.insert(out, '    | ' .. line_text(d.bufnr, d.lnum + 1))
  end
  return out
end

local function count_note(n)
  return n == 0 and 'no diagnostics' or n == 1 and '1 diagnostic' or (n .. ' diagnostics')
end

-- gather.diagnostics: #buffer's, or with `all` one item per buffer, each
-- naming its file, so that the host withholds those outside the
-- workspace as it does for #buffer.
function gather.diagnostics(arg)
  local all = arg == 'all'
  local b = source_buf()
  if not all and not b then
    return { source = '#diagnostics', error = 'no file buffer to take diagnostics from' }
  end
  local list = vim.diagnostic.get(not all and b or nil)
  table.sort(list, function(x, y)
    if x.bufnr ~= y.bufnr then
      return x.bufnr < y.bufnr
    end
    return x.lnum < y.lnum
  end)
  if not all or #list == 0 then
    local out = diagnostic_lines(list, M.max_entries)
    local it = { source = '#diagnostics', text = #out > 0 and table.concat(out, '\n') .. '\n' or '' }
    it.path = all and 'all buffers' or rel(api.nvim_buf_get_name(b))
    it.notes = { count_note(#list) }
    return it
  end
  local items, left = {}, M.max_entries
  local i = 1
  while i <= #list do
    local buf, group = list[i].bufnr, {}
    while i <= #list and list[i].bufnr == buf do
      table.insert(group, list[i])
      i = i + 1
    end
    local out = diagnostic_lines(group, math.max(left, 0))
    left = left - #group
    table.insert(items, { source = '#diagnostics', path = rel(api.nvim_buf_get_name(buf)),
      text = table.concat(out, '\n') .. '\n', notes = { count_note(#group) } })
  end
  return items
end

function gather.quickfix()
  local qf = vim.fn.getqflist()
  local out = {}
  for i, e in ipairs(qf) do
    if i > M.max_entries then
      table.insert(out, ('… %d more left out (at most %d)'):format(#qf - M.max_entries, M.max_entries))
      break
    end
    local name = e.bufnr > 0 and rel(api.nvim_buf_get_name(e.bufnr)) or ''
    table.insert(out, ('%s:%d:%d: %s'):format(name, e.lnum, e.col, vim.trim(e.text or '')))
    if e.bufnr > 0 and e.lnum > 0 then
      table.insert(out, '    | ' .. line_text(e.bufnr, e.lnum))
    end
  end
  local title = vim.fn.getqflist({ title = 1 }).title or ''
  local it = { source = '#quickfix', text = #out > 0 and table.concat(out, '\n') .. '\n' or '' }
  it.notes = { #qf == 0 and 'the list is empty' or #qf == 1 and '1 entry' or (#qf .. ' entries') }
  if title ~= '' and title ~= ':setqflist()' then
    table.insert(it.notes, 1, title)
  end
  return it
end

function gather.messages()
  local text = vim.fn.execute('messages')
  text = text:gsub('^\n+', '')
  if #text > M.cap then
    text = text:sub(-M.cap)
  end
  return { source = '#messages', text = text ~= '' and (text .. '\n') or '', notes = text == '' and { 'no messages' } or nil }
end

function gather.terminal()
  local best, used = nil, -1
  for _, info in ipairs(vim.fn.getbufinfo()) do
    if vim.bo[info.bufnr].buftype == 'terminal' and (info.lastused or 0) >= used then
      best, used = info.bufnr, info.lastused or 0
    end
  end
  if not best then
    return { source = '#terminal', error = 'no terminal buffer' }
  end
  local lines = api.nvim_buf_get_lines(best, 0, -1, false)
  while #lines > 0 and lines[#lines] == '' do
    table.remove(lines)
  end
  local first = math.max(1, #lines - M.terminal_lines + 1)
  local text = table.concat(vim.list_slice(lines, first, #lines), '\n') .. '\n'
  return { source = '#terminal', path = api.nvim_buf_get_name(best), text = text, notes = { ('the last %d lines'):format(#lines - first + 1) } }
end

-- mentions lists the editor's `#name[:arg]` mentions in text, in order,
-- each once. Fenced code blocks are skipped, as the host skips them.
function M.mentions(text)
  local out, seen = {}, {}
  local fenced = false
  for line in (text .. '\n'):gmatch('(.-)\n') do
    if vim.trim(line):sub(1, 3) == '```' then
      fenced = not fenced
    elseif not fenced then
      local init = 1
      while true do
        local s, e, name = line:find('#([%a_]+)', init)
        if not s then
          break
        end
        local before = s > 1 and line:sub(s - 1, s - 1) or ' '
        local arg = ''
        local after = e
        if line:sub(e + 1, e + 1) == ':' then
          local a = line:match('^:([^%s%)%]},;]+)', e + 1)
          if a then
            arg = a:gsub('[%.!?:]+$', '')
            after = e + 1 + #arg
          end
        end
        local next_ch = line:sub(after + 1, after + 1)
        if before:match('[%s%(%[{"\']') and not next_ch:match('[%w_]') and gather[name] then
          local key = name .. ':' .. arg
          if not seen[key] then
            seen[key] = true
            table.insert(out, { name = name, arg = arg })
          end
        end
        init = after + 1
      end
    end
  end
  return out
end

-- gather_all returns the items for the editor mentions in text. A
-- mention that fails is an item with an error: never a Lua error.
function M.gather(text)
  local items = {}
  for _, m in ipairs(M.mentions(text)) do
    local ok, res = pcall(gather[m.name], m.arg)
    if not ok then
      res = { source = '#' .. m.name, error = tostring(res) }
    end
    if res.source then
      res = { res }
    end
    for _, it in ipairs(res) do
      if it.notes and #it.notes == 0 then
        it.notes = nil
      end
      table.insert(items, it)
    end
  end
  return items
end

return M
