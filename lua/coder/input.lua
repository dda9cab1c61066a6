-- The chat's input buffer (filetype coder-input): where the user types,
-- with completion (coder.complete) and the selections :Coder adds. Its
-- window is coder.ui's.
local M = {}

local api = vim.api
local ui = require('coder.ui')
local st = ui.state
local valid_buf, valid_win = ui.valid_buf, ui.valid_win

-- input_buf returns the input buffer, creating it.
function M.input_buf()
  if not valid_buf(st.ibuf) then
    st.ibuf = ui.scratch('coder://input', 'coder-input')
    require('coder.complete').setup_buffer(st.ibuf)
    ui.set_keys()
    -- The key hints follow the mode: <C-s> sends in Insert mode.
    api.nvim_create_autocmd({ 'InsertEnter', 'InsertLeave' }, {
      buffer = st.ibuf,
      callback = function(ev)
        st.inserting = ev.event == 'InsertEnter'
        require('coder.statusline').render_status()
      end,
    })
  end
  return st.ibuf
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
    ui.make_fold(st.iwin, first, first + #lines - 1, true)
    api.nvim_set_current_win(st.iwin)
    api.nvim_win_set_cursor(st.iwin, { first == 2 and 1 or #cur, 0 })
    vim.cmd('startinsert!')
  end
end

return M
