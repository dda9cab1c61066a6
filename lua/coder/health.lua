-- :checkhealth coder
local M = {}

local function reporter()
  local h = vim.health
  if h == nil or (h.start == nil and h.report_start == nil) then
    h = require('health')
  end
  return {
    start = h.start or h.report_start,
    ok = h.ok or h.report_ok,
    info = h.info or h.report_info,
    warn = h.warn or h.report_warn,
    error = h.error or h.report_error,
  }
end

-- section names a part of the report. Neovim 0.10+ heads the report with
-- the plugin's name already ("coder: require("coder.health").check()").
local function section(name)
  if vim.fn.has('nvim-0.10') == 1 then
    return name
  end
  return 'coder: ' .. name
end
M.section = section

local function check_neovim(r)
  r.start(section('Neovim'))
  local v = vim.version()
  local vs = ('%d.%d.%d'):format(v.major, v.minor, v.patch)
  if vim.fn.has('nvim-0.7') == 1 then
    r.ok('Neovim ' .. vs)
  else
    r.error('Neovim ' .. vs .. ' is too old', { 'coder-nvim needs Neovim 0.7 or newer' })
  end
  if vim.fn.has('nvim-0.8') == 0 then
    r.info('Neovim 0.7: the cwd prompt shows in the input status line (no winbar) and User autocmds carry no data (use require("coder").last_event)')
  end
end

-- check_host reports the host binary and its launcher; it returns whether
-- the host can be asked for the rest.
local function check_host(r, host)
  r.start(section('host binary'))
  local cmd = host.cmd()
  local bin = cmd[1]
  local want = host.plugin_version()
  local host_ok = false
  local update = host.update_advice()
  r.info('plugin ' .. host.root() .. ', version ' .. tostring(want or '(no VERSION file)'))
  if vim.fn.executable(bin) ~= 1 then
    r.error('host binary not found: ' .. bin, { update, 'or set require("coder").setup({cmd = "/path/to/coder-nvim"})' })
  else
    local out = vim.fn.system({ bin, '--version' })
    local got = vim.trim(out or ''):match('^coder%-nvim%s+(%S+)')
    if vim.v.shell_error ~= 0 or not got then
      r.error(('%s --version failed: %s'):format(bin, vim.trim(out or '')), { update })
    elseif want and got ~= want then
      r.warn(('host %s is version %s, the plugin is %s'):format(bin, got, want), { update })
      host_ok = true
    else
      r.ok(('host %s, version %s'):format(bin, got))
      host_ok = true
    end
  end
  -- The sandbox's launcher beside the host (Linux): without it the host
  -- binary is its own launcher, with the same confinement.
  if host_ok and vim.fn.has('linux') == 1 then
    local side = vim.fn.fnamemodify(bin, ':p:h') .. '/coder-nvim-sandbox'
    if vim.fn.executable(side) == 1 then
      r.ok('sandbox launcher beside it: ' .. side)
    else
      r.info('no sandbox launcher beside it (' .. side .. '): the host binary launches the sandbox itself, '
        .. 'with the same confinement; only a session\'s first confined command starts a few milliseconds later')
    end
  end
  return host_ok
end

local function check_tools(r)
  r.start(section('tools'))
  if vim.fn.executable('git') == 1 then
    r.ok(vim.trim(vim.fn.system({ 'git', '--version' })))
  else
    r.warn('git not found', { '/undo and /diff need git; install it' })
  end
  if vim.fn.executable('rg') == 1 then
    r.ok('ripgrep (rg) found: the grep and glob tools use it')
  else
    r.info('ripgrep (rg) not found: the grep and glob tools use the built-in search, slower on large trees')
  end
end

local function check_provider(r, info)
  if info.demo then
    r.warn('no provider configured: the offline demo answers (' .. tostring(info.provider_reason or '') .. ')', {
      'set one of OPENAI_API_KEY, ANTHROPIC_API_KEY, GEMINI_API_KEY, OPENROUTER_API_KEY, DEEPSEEK_API_KEY,',
      'sign in to GitHub Copilot (copilot.vim / copilot.lua), start Ollama,',
      'or configure "provider" and "model" in ~/.config/coder/config.json: see :help coder-providers',
    })
  else
    r.ok(('provider %s at %s, model %s'):format(info.provider, info.base_url, info.model))
    r.info('chosen because: ' .. tostring(info.provider_reason))
    r.info(('wire API %s, context window %s tokens'):format(tostring(info.wire_api), tostring(info.context_window)))
    if info.api_key_env == nil or info.api_key_env == '' then
      r.ok('no API key variable: ' .. (info.provider == 'copilot' and 'the Copilot token file is used' or 'a local server'))
    elseif info.api_key_set then
      r.ok('API key set ($' .. tostring(info.api_key_env) .. ')')
    else
      r.warn('no API key in $' .. tostring(info.api_key_env))
    end
    if info.reachable then
      r.ok('reachable: ' .. tostring(info.reach))
    else
      r.error('not reachable: ' .. tostring(info.reach))
    end
  end
  for _, f in ipairs(info.config_files or {}) do
    r.info('config file: ' .. f)
  end
  -- host_nice: where the host and its commands stand against Neovim.
  if type(info.priority) == 'string' and info.priority ~= '' then
    local line = 'CPU priority of the host and its commands: ' .. info.priority
    if info.priority:find('^not lowered') then
      r.warn(line)
    else
      r.info(line)
    end
  end
end

local function check_platform(r, info)
  -- What this platform does otherwise than Linux (:help coder-platforms).
  r.start(section('platform'))
  r.ok('host built for ' .. tostring(info.platform))
  if info.bash_missing then
    r.warn(info.bash_missing)
  elseif info.bash then
    r.ok('bash: ' .. info.bash)
  end
  -- The host's own programs, found on a PATH without the workspace's
  -- directories or relative entries (:help coder-host-programs).
  for _, p in ipairs(info.programs or {}) do
    r.info('host program ' .. p)
  end
  if type(info.path_dropped) == 'table' and #info.path_dropped > 0 then
    local shown = {}
    for _, d in ipairs(info.path_dropped) do
      table.insert(shown, d == '' and '(empty: the current directory)' or d)
    end
    r.info('PATH entries the host does not use: ' .. table.concat(shown, ', '))
  end
  for _, d in ipairs(info.platform_differences or {}) do
    r.info(d)
  end
  -- The kernel sandbox of the agent's commands (:help coder-sandbox).
  if type(info.sandbox) == 'string' then
    if info.sandbox:find('^on') and not info.sandbox:find('missing:') then
      r.ok('sandbox: ' .. info.sandbox)
    else
      r.warn('sandbox: ' .. info.sandbox, { 'commands are then asked as without it; see :help coder-sandbox' })
    end
  end
  -- Where /undo and /rewind's snapshots go (:help coder-checkpoints).
  if type(info.checkpoints) == 'string' then
    if info.checkpoints:find('^off') then
      r.warn('checkpoints: ' .. info.checkpoints, { '/undo and /rewind cannot take files back; see :help coder-checkpoints' })
    else
      r.ok('checkpoints: ' .. info.checkpoints)
    end
  end
end

-- check_lists: the hooks, tasks and MCP servers, one line each.
local function check_lists(r, info)
  -- The user's hooks, one line each (:help coder-hooks): they run on
  -- the host, outside any sandbox.
  local hooks = info.hooks or {}
  if #hooks > 0 then
    r.start(section('hooks'))
    for _, h in ipairs(hooks) do
      r.info(h)
    end
  end

  -- The parallel tasks in git worktrees, one line each (:help coder-tasks).
  local tasks = info.tasks or {}
  if #tasks > 0 then
    r.start(section('tasks'))
    for _, l in ipairs(tasks) do
      r.info(l)
    end
  end

  -- One line per MCP server: state, tools, last error (:help coder-mcp).
  local servers = info.mcp_servers or {}
  if #servers > 0 then
    r.start(section('MCP servers'))
    for _, s in ipairs(servers) do
      local line = ('%s (%s): %s, %d tools'):format(s.name, s.transport, s.state, s.tools or 0)
      if (s.prompts or 0) > 0 or (s.resources or 0) > 0 then
        line = line .. (', %d prompts, %d resources'):format(s.prompts or 0, s.resources or 0)
      end
      if (s.auth or '') ~= '' then
        line = line .. ', auth: ' .. s.auth -- OAuth (:help coder-mcp-oauth)
      end
      if s.last_error and s.last_error ~= '' then
        line = line .. '; last error: ' .. s.last_error
      end
      if s.state == 'ready' or s.state == 'disabled' then
        r.ok(line)
      elseif s.state == 'idle' then
        -- Stopped while no conversation used it (mcp.idle_timeout).
        r.ok(line .. ' (no conversation uses it; it starts again when one does)')
      elseif s.state == 'starting' and (s.last_error or '') == '' then
        -- Simply not up yet (the host started moments ago): no warning.
        r.ok(line .. ' (still starting; check again in a moment)')
      elseif s.state == 'needs_login' then
        r.warn(line .. ' (sign in with /mcp login ' .. s.name .. ')')
      elseif s.state == 'starting' or s.state == 'restarting' then
        r.warn(line)
      else
        r.error(line)
      end
    end
  end
end

function M.check()
  local r = reporter()
  local host = require('coder.host')
  check_neovim(r)
  local host_ok = check_host(r, host)
  check_tools(r)
  r.start(section('provider'))
  if not host_ok then
    r.warn('skipped: the host binary is not usable')
    return
  end
  local info, err = host.request('coder_health')
  if not info then
    r.error('the host did not answer: ' .. tostring(err))
    return
  end
  if info.error then
    r.error(info.error)
    return
  end
  check_provider(r, info)
  check_platform(r, info)
  check_lists(r, info)
end

return M
