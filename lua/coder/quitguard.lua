-- Quitting Neovim while an approval waits would end the agent's call
-- without a word: a quit that would leave Neovim is refused while one is
-- open (its float's buffer counts as changed for that quit, as an unsaved
-- file would), with what to do; :qa! still quits, and the call is then
-- recorded as aborted.
local M = {}

local api = vim.api

local waiting = nil -- {title, buf}: the request waiting and its float's buffer

local quit_all = {
  qa = true, qal = true, qall = true, quita = true, quitall = true,
  wqa = true, wqal = true, wqall = true, xa = true, xal = true, xall = true,
}

-- exits reports whether the quit under way would leave Neovim: the last
-- ordinary window, or a quit-all command as last typed.
local function exits()
  local normal = 0
  for _, w in ipairs(api.nvim_list_wins()) do
    if api.nvim_win_get_config(w).relative == '' then
      normal = normal + 1
    end
  end
  if normal <= 1 then
    return true
  end
  local name, bang = vim.fn.histget(':', -1):match('^%s*(%a+)(!?)')
  return name ~= nil and quit_all[name] and bang == ''
end

-- hold makes the float's buffer a changed one for this quit: Neovim then
-- refuses it and goes to the float, where the request can be answered.
-- Right after, it is a scratch buffer again (closing the float denies).
local function hold(buf)
  vim.bo[buf].buftype = 'acwrite'
  vim.bo[buf].modified = true
  vim.schedule(function()
    if api.nvim_buf_is_valid(buf) then
      vim.bo[buf].modified = false
      vim.bo[buf].buftype = 'nofile'
    end
  end)
end

-- waiting_for says an approval (title, shown in float buffer buf) is
-- open, nil: none is. While one is, quitting Neovim is held back.
function M.waiting_for(title, buf)
  waiting = title and { title = title, buf = buf } or nil
  if buf then
    -- :wqa "writes" it: nothing is written, the quit is still held.
    api.nvim_create_autocmd('BufWriteCmd', { buffer = buf, callback = function() end })
  end
end

-- attach starts the guard (once per setup).
function M.attach()
  api.nvim_create_autocmd('QuitPre', {
    group = api.nvim_create_augroup('CoderQuitGuard', { clear = true }),
    callback = function()
      local w = waiting
      if w and api.nvim_buf_is_valid(w.buf) and exits() then
        hold(w.buf)
        vim.notify(('coder: an approval is waiting (%s): answer it first, or quit with :qa! (the call is then recorded as aborted)'):format(w.title), vim.log.levels.WARN, { title = 'coder' })
      end
    end,
  })
end

return M
