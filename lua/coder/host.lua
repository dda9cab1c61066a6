-- The Go host process: started lazily with jobstart(..., {rpc = true}),
-- restarted on next use after it dies. Calls that can take time are
-- rpcnotify; only quick lookups use rpcrequest.
local M = {}

local state = {
  chan = nil,
  stopping = false,
  stderr = {},
  session_id = nil,
  commands = nil,
  ready = false,
  version = nil,
  version_warned = false, -- check_version said it once
}
M.state = state

-- root is the plugin checkout: this file is <root>/lua/coder/host.lua.
function M.root()
  local src = debug.getinfo(1, 'S').source:sub(2)
  return vim.fn.fnamemodify(src, ':p:h:h:h')
end

-- plugin_version is the VERSION file of the checkout.
function M.plugin_version()
  local f = io.open(M.root() .. '/VERSION', 'r')
  if not f then
    return nil
  end
  local v = f:read('*l')
  f:close()
  return v and vim.trim(v) or nil
end

-- update_advice says how to bring the host binary to the plugin's
-- version (:help coder-install).
function M.update_advice()
  return ('update it: :Lazy build coder-nvim, or `make install-binary` in %s (downloads the release binary; '
    .. '`make build` builds it with Go)'):format(M.root())
end

-- cmd returns the host command as a list.
function M.cmd()
  local c = require('coder.config').current.cmd
  if c == nil then
    -- `make build` and `make dist` name it coder-nvim.exe on Windows.
    local exe = vim.fn.has('win32') == 1 and '.exe' or ''
    return { M.root() .. '/bin/coder-nvim' .. exe }
  end
  if type(c) == 'string' then
    return { c }
  end
  return vim.deepcopy(c)
end

local function notify(msg, level)
  vim.schedule(function()
    vim.notify(msg, level or vim.log.levels.INFO, { title = 'coder' })
  end)
end

-- check_version says once per Neovim, when the host that started is of
-- another version than the plugin, how to update it.
function M.check_version(got)
  local want = M.plugin_version()
  if state.version_warned or not want or not got or got == want then
    return
  end
  state.version_warned = true
  notify(('coder: the host binary is version %s, the plugin is %s; %s'):format(got, want, M.update_advice()), vim.log.levels.WARN)
end

local function on_stderr(_, data)
  for _, line in ipairs(data or {}) do
    if line ~= '' then
      table.insert(state.stderr, line)
      if #state.stderr > 200 then
        table.remove(state.stderr, 1)
      end
    end
  end
end

local function on_exit(job, code)
  if state.chan ~= job then
    return
  end
  state.chan = nil
  state.ready = false
  if state.stopping or state.leaving then
    state.stopping = false
    return
  end
  local last = state.stderr[#state.stderr]
  local msg = ('coder: the host exited (code %d)%s; it restarts on next use'):format(code, last and (': ' .. last) or '')
  notify(msg, vim.log.levels.ERROR)
  vim.schedule(function()
    require('coder.bridge').host_died(msg)
  end)
end

-- running reports whether the host is up.
function M.running()
  return state.chan ~= nil
end

-- ensure starts the host if needed and returns its channel, or nil after
-- telling the user why it could not start.
function M.ensure()
  if state.chan then
    return state.chan
  end
  local cmd = M.cmd()
  if vim.fn.executable(cmd[1]) ~= 1 then
    vim.notify(
      ('coder: host binary %s not found or not executable; %s; or set setup({cmd = ...})'):format(
        cmd[1],
        (M.update_advice():gsub('^update it', 'install it'))
      ),
      vim.log.levels.ERROR,
      { title = 'coder' }
    )
    return nil
  end
  local cwd = vim.fn.getcwd()
  local opts = { rpc = true, cwd = cwd, on_stderr = on_stderr, on_exit = on_exit }
  local env = require('coder.config').current.env
  if env then
    opts.env = env
  end
  state.stderr = {}
  if not state.leave_au then
    -- Neovim ends the host when it exits: that is no death to report.
    state.leave_au = vim.api.nvim_create_autocmd('VimLeavePre', {
      callback = function()
        state.leaving = true
      end,
    })
  end
  local ok, chan = pcall(vim.fn.jobstart, cmd, opts)
  if not ok or type(chan) ~= 'number' or chan <= 0 then
    vim.notify(('coder: cannot start %s: %s'):format(cmd[1], tostring(chan)), vim.log.levels.ERROR, { title = 'coder' })
    return nil
  end
  state.chan = chan
  -- open_key: the key the fold notices name (keys.open_full).
  local open_key = require('coder.config').current.keys.open_full
  -- shown: the session the transcript holds; the host replays a resumed
  -- one into a transcript that does not (it was wiped).
  local shown = state.session_id and require('coder.transcript').has_text() and state.session_id or ''
  vim.rpcnotify(chan, 'coder_start', {
    cwd = cwd,
    resume = state.session_id or '',
    shown = shown,
    open_key = type(open_key) == 'string' and open_key or '',
    nice = require('coder.config').current.host_nice,
    editor_pid = vim.fn.getpid(),
    mcp_servers = require('coder.config').mcp_json(),
  })
  return chan
end

-- notify sends a notification, starting the host first.
function M.notify(method, ...)
  local chan = M.ensure()
  if not chan then
    return false
  end
  vim.rpcnotify(chan, method, ...)
  return true
end

-- request is for quick lookups only (status, command names, health).
function M.request(method, ...)
  local chan = M.ensure()
  if not chan then
    return nil, 'host not running'
  end
  local ok, res = pcall(vim.rpcrequest, chan, method, ...)
  if not ok then
    return nil, res
  end
  return res
end

-- stop ends the host on purpose (no "host exited" message).
function M.stop()
  if state.chan then
    state.stopping = true
    vim.fn.jobstop(state.chan)
  end
end

-- pid of the running host, or nil.
function M.pid()
  if not state.chan then
    return nil
  end
  local ok, pid = pcall(vim.fn.jobpid, state.chan)
  return ok and pid or nil
end

return M
