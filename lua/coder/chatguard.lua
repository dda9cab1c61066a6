-- Keeps the chat's windows on their own buffers: a file opened from the
-- input or the transcript (:e, :b, gf, a picker) goes to the editing
-- window instead of replacing the prompt. 'winfixbuf' (0.10+) would make
-- :e fail with E1513 rather than open the file, so one guard serves every
-- version.
local M = {}

local api = vim.api

-- editing_win is the window files go to: the previous window when it is
-- an ordinary one, else the first ordinary window of the tab that is not
-- the chat's, else a new split beside the chat.
local function editing_win(chat)
  local function ok(w)
    return w and w ~= 0 and api.nvim_win_is_valid(w) and not chat[w] and api.nvim_win_get_config(w).relative == ''
  end
  local prev = vim.fn.win_getid(vim.fn.winnr('#'))
  if ok(prev) then
    return prev
  end
  for _, w in ipairs(api.nvim_tabpage_list_wins(0)) do
    if ok(w) then
      return w
    end
  end
  for w in pairs(chat) do
    if api.nvim_win_is_valid(w) and api.nvim_win_get_config(w).relative == '' then
      api.nvim_set_current_win(w)
      vim.cmd('aboveleft vsplit')
      return api.nvim_get_current_win()
    end
  end
  vim.cmd('topleft new')
  return api.nvim_get_current_win()
end

-- fix gives each chat window its buffer back and shows the buffer that
-- was put in it in the editing window, with the cursor there.
local function fix()
  local ui = require('coder.ui')
  local st = ui.state
  local own = {}
  if ui.valid_win(st.twin) and ui.valid_buf(st.tbuf) then
    own[st.twin] = st.tbuf
  end
  if ui.valid_win(st.iwin) and ui.valid_buf(st.ibuf) then
    own[st.iwin] = st.ibuf
  end
  for w, want in pairs(own) do
    local got = api.nvim_win_get_buf(w)
    if got ~= want then
      local cursor = api.nvim_win_get_cursor(w)
      pcall(api.nvim_win_set_buf, w, want)
      local target = editing_win(own)
      api.nvim_win_set_buf(target, got)
      pcall(api.nvim_win_set_cursor, target, cursor)
      api.nvim_set_current_win(target)
    end
  end
end

-- attach starts the guard (once).
function M.attach()
  api.nvim_create_autocmd('BufWinEnter', {
    group = api.nvim_create_augroup('CoderChatGuard', { clear = true }),
    callback = function()
      -- After the command that showed the buffer has finished with it.
      vim.schedule(fix)
    end,
  })
end

return M
