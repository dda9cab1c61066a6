-- The one notifier of notices that need the user while they are elsewhere
-- (a task done, failed or waiting; later the end of a turn): vim.notify
-- once per notice, so nvim-notify, noice or fidget show it their way; a
-- `User CoderTask` autocmd with its data; and, with notify_terminal, an
-- OSC 9 or 777 sequence through Neovim's stdout for the terminal or tmux.
-- What is a notice, and its words, come from the host (:help coder-notify).
local M = {}

-- said holds the ids of the notices shown: each is shown once, however
-- often it arrives (a host replaying its state).
local said = {}

-- osc is the terminal's notification sequence for msg; inside tmux it is
-- passed through to the outer terminal.
local function osc(kind, msg)
  msg = msg:gsub('[%c]', ' ')
  local seq
  if kind == 'osc777' then
    seq = '\27]777;notify;coder;' .. msg:gsub(';', ',') .. '\7'
  else
    seq = '\27]9;' .. msg .. '\7'
  end
  if vim.env.TMUX and vim.env.TMUX ~= '' then
    seq = '\27Ptmux;' .. seq:gsub('\27', '\27\27') .. '\27\\'
  end
  return seq
end

-- terminal writes the sequence to the terminal: through the UI where
-- Neovim can send it there (0.12's nvim_ui_send, the TUI being its own
-- process), else to Neovim's stderr, which is the terminal's too.
local function terminal(kind, msg)
  local seq = osc(kind, msg)
  if vim.api.nvim_ui_send and #vim.api.nvim_list_uis() > 0 then
    return pcall(vim.api.nvim_ui_send, seq)
  end
  return pcall(vim.fn.chansend, vim.v.stderr, seq)
end

-- notice shows one notice from the host: o.kind (task_done,
-- task_waiting, …), o.msg, o.data (given to the autocmd), o.shown (the
-- notice is about what the transcript shows: no popup while it is open).
function M.notice(o)
  local cfg = require('coder.config').current
  local data = o.data or {}
  local key = o.id or o.msg
  if o.autocmd ~= false then
    local opts = { pattern = 'CoderTask', modeline = false }
    if vim.fn.has('nvim-0.8') == 1 then
      opts.data = vim.tbl_extend('force', { kind = o.kind, message = o.msg }, data)
    end
    require('coder').last_event = { pattern = 'CoderTask', data = vim.tbl_extend('force', { kind = o.kind, message = o.msg }, data) }
    pcall(vim.api.nvim_exec_autocmds, 'User', opts)
  end
  if o.shown and require('coder.ui').is_open() then
    return
  end
  if said[key] then
    return
  end
  said[key] = true
  if cfg.notify ~= false then
    local level = o.kind == 'task_waiting' and vim.log.levels.WARN or vim.log.levels.INFO
    vim.notify(o.msg, level, { title = 'coder' })
  end
  if cfg.notify_terminal then
    terminal(cfg.notify_terminal, o.msg)
  end
end

-- title is the chat session's title for notices: its first message, cut.
local title = nil

-- turn_started keeps the session's title (its first input).
function M.turn_started(input)
  if not title and type(input) == 'string' and vim.trim(input) ~= '' then
    title = vim.trim(input):gsub('%s+', ' ')
    if vim.fn.strchars(title) > 40 then
      title = vim.fn.strcharpart(title, 0, 39) .. '…'
    end
  end
end

-- turn says once that the chat's turn ended, failed or waits for an
-- answer, when the chat is not visible in the current tab (the
-- User CoderTurnDone and CoderApproval autocmds fire as always).
function M.turn(id, kind, what)
  if require('coder.ui').visible_here() then
    return
  end
  M.notice({ id = id, kind = kind, msg = ('coder: %s: %s'):format(title or 'chat', what), autocmd = false })
end

M._osc = osc

return M
