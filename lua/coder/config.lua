-- Options of require('coder').setup(). validate() checks a whole table
-- before anything is applied, so a bad option changes nothing.
local M = {}

local defaults = {
  -- Host command: a path or a list (path and arguments). nil: bin/coder-nvim
  -- of the plugin's own checkout.
  cmd = nil,
  -- Extra environment for the host process.
  env = nil,
  -- Chat window: "right", "left", "float" or "tab".
  layout = 'right',
  -- Width of a side split: columns, or a fraction of the editor (< 1).
  width = 0.4,
  -- Height of the input window, in lines.
  input_height = 5,
  -- Focus the approval float when it opens.
  focus_approval = true,
  -- Reload unmodified buffers of files the agent changed.
  reload = true,
  -- Notices that need you while you are elsewhere (a task done, failed or
  -- waiting for an answer): vim.notify, once each (:help coder-notify).
  notify = true,
  -- Also tell the terminal, through Neovim's stdout, so it or tmux shows
  -- a desktop notification: false, 'osc9' (iTerm2, WezTerm, kitty,
  -- Windows Terminal) or 'osc777' (foot, rxvt-unicode, Ghostty).
  notify_terminal = false,
  -- How far below Neovim the host, and the tools it runs, take the CPU on
  -- a busy machine: a nice value, 0 (level with Neovim) to 19.
  host_nice = 10,
  -- MCP servers, added to mcpServers of the config files (same shape):
  -- { name = { command = 'npx', args = {...}, env = {...}, cwd = '...' },
  --   web = { url = 'https://...', headers = {...} } }, plus disabled and
  -- trusted. See :help coder-mcp.
  mcp_servers = nil,
  keys = {
    send = '<CR>', -- normal mode, input buffer
    send_insert = '<C-s>', -- insert mode, input buffer
    stop = '<C-c>', -- interrupt the running turn (input and transcript)
    close = 'q', -- close the chat window (normal mode)
    approve = 'y', -- approval float: allow once / apply accepted hunks
    always = 'a', -- approval float: allow always
    deny = 'n', -- approval float: deny
    deny_alt = '<Esc>', -- approval float: deny
    next_hunk = ']h', -- diff review
    prev_hunk = '[h',
    accept_hunk = 'ga',
    reject_hunk = 'gr',
    reject_all = 'gR', -- inline edit review: reject every hunk
    review_comment = 'gc', -- reviews: comment on the hunk under the cursor
    review_send = 'gS', -- reviews: send every waiting comment as one message
    plan_approve = 'ga', -- plan buffer: approve, leave plan mode for default (edits ask)
    plan_auto_edit = 'gA', -- plan buffer: approve, switch to auto-edit
    plan_revise = 'gr', -- plan buffer: keep planning, with a comment
    plan_cancel = 'gR', -- plan buffer: cancel the plan
    open_full = 'gO', -- transcript: open a folded answer, tool output or attached context whole
    review_turn = 'gR', -- transcript: review the turn whose summary line is at or below the cursor
    yank_code = 'gy', -- transcript: yank the code block under the cursor
    next_code = ']]', -- transcript: the next code block
    prev_code = '[[', -- transcript: the previous code block
    help = 'g?', -- transcript and input (normal mode): list the keys that work there (? stays backward search)
  },
}

local layouts = { right = true, left = true, float = true, tab = true }

-- One entry per option: check(value) returns an error message or nil.
local function typ(want, nilok)
  return function(v)
    if v == nil and nilok then
      return nil
    end
    if type(v) ~= want then
      return ('expected %s, got %s'):format(want, type(v))
    end
  end
end

local mcp_keys = {
  command = 'string',
  args = 'list',
  env = 'map',
  cwd = 'string',
  url = 'string',
  headers = 'map',
  type = 'string',
  disabled = 'boolean',
  trusted = 'boolean',
}

local function check_mcp_server(name, srv)
  if type(name) ~= 'string' or not name:match('^[%w_-]+$') then
    return ('server %s: names may use only letters, digits, _ and -'):format(vim.inspect(name))
  end
  if type(srv) ~= 'table' then
    return ('server "%s": expected a table, got %s'):format(name, type(srv))
  end
  for k, v in pairs(srv) do
    local want = mcp_keys[k]
    if want == nil then
      return ('server "%s": unknown key "%s"'):format(name, tostring(k))
    end
    if want == 'list' then
      if type(v) ~= 'table' then
        return ('server "%s": "%s" expected a list of strings, got %s'):format(name, k, type(v))
      end
      for _, s in ipairs(v) do
        if type(s) ~= 'string' then
          return ('server "%s": "%s" expected a list of strings'):format(name, k)
        end
      end
    elseif want == 'map' then
      if type(v) ~= 'table' then
        return ('server "%s": "%s" expected a table of strings, got %s'):format(name, k, type(v))
      end
      for ek, ev in pairs(v) do
        if type(ek) ~= 'string' or type(ev) ~= 'string' then
          return ('server "%s": "%s" expected name = "value" entries'):format(name, k)
        end
      end
    elseif type(v) ~= want then
      return ('server "%s": "%s" expected %s, got %s'):format(name, k, want, type(v))
    end
  end
  if (srv.command == nil) == (srv.url == nil) then
    return ('server "%s": needs exactly one of "command" (stdio) or "url" (HTTP)'):format(name)
  end
end

local checks = {
  mcp_servers = function(v)
    if v == nil then
      return nil
    end
    if type(v) ~= 'table' then
      return 'expected a table of servers by name, got ' .. type(v)
    end
    for name, srv in pairs(v) do
      local err = check_mcp_server(name, srv)
      if err then
        return err
      end
    end
  end,
  cmd = function(v)
    if v == nil or type(v) == 'string' then
      return nil
    end
    if type(v) ~= 'table' or #v == 0 then
      return 'expected a string or a non-empty list of strings, got ' .. type(v)
    end
    for i, s in ipairs(v) do
      if type(s) ~= 'string' then
        return ('item %d: expected string, got %s'):format(i, type(s))
      end
    end
  end,
  env = function(v)
    if v == nil then
      return nil
    end
    if type(v) ~= 'table' then
      return 'expected a table of strings, got ' .. type(v)
    end
    for k, s in pairs(v) do
      if type(k) ~= 'string' or (type(s) ~= 'string' and type(s) ~= 'number') then
        return ('entry %s: expected name = "value"'):format(tostring(k))
      end
    end
  end,
  layout = function(v)
    if type(v) ~= 'string' then
      return 'expected string, got ' .. type(v)
    end
    if not layouts[v] then
      return ('expected "right", "left", "float" or "tab", got %q'):format(v)
    end
  end,
  width = function(v)
    if type(v) ~= 'number' then
      return 'expected number, got ' .. type(v)
    end
    if v <= 0 then
      return 'must be positive'
    end
  end,
  input_height = function(v)
    if type(v) ~= 'number' then
      return 'expected number, got ' .. type(v)
    end
    if v < 1 or v ~= math.floor(v) then
      return 'must be a whole number of lines, at least 1'
    end
  end,
  host_nice = function(v)
    if type(v) ~= 'number' then
      return 'expected number, got ' .. type(v)
    end
    if v < 0 or v > 19 or v ~= math.floor(v) then
      return 'must be a whole number from 0 to 19'
    end
  end,
  focus_approval = typ('boolean'),
  reload = typ('boolean'),
  notify = typ('boolean'),
  notify_terminal = function(v)
    if v ~= false and v ~= 'osc9' and v ~= 'osc777' then
      return ("expected false, 'osc9' or 'osc777', got %s"):format(vim.inspect(v))
    end
  end,
}

local function copy(t)
  return vim.deepcopy(t)
end

M.current = copy(defaults)

-- mcp_json is mcp_servers as the JSON object the host decodes ('' when
-- none); empty tables are left out, since they would encode as lists.
function M.mcp_json()
  local servers = M.current.mcp_servers
  if servers == nil or next(servers) == nil then
    return ''
  end
  local out = {}
  for name, srv in pairs(servers) do
    local e = {}
    for k, v in pairs(srv) do
      if type(v) ~= 'table' or next(v) ~= nil then
        e[k] = v
      end
    end
    out[name] = e
  end
  return vim.fn.json_encode(out)
end

function M.defaults()
  return copy(defaults)
end

-- validate returns the merged options or nil and an error naming the option.
function M.validate(opts)
  if opts == nil then
    return copy(defaults)
  end
  if type(opts) ~= 'table' then
    return nil, 'setup(opts): expected a table, got ' .. type(opts)
  end
  local merged = copy(defaults)
  for k, v in pairs(opts) do
    if k == 'keys' then
      if type(v) ~= 'table' then
        return nil, ('option "keys": expected table, got %s'):format(type(v))
      end
      for name, lhs in pairs(v) do
        if defaults.keys[name] == nil then
          return nil, ('option "keys.%s": unknown key name (known: %s)'):format(
            tostring(name),
            table.concat(vim.tbl_keys(defaults.keys), ', ')
          )
        end
        if lhs ~= false and type(lhs) ~= 'string' then
          return nil, ('option "keys.%s": expected string or false, got %s'):format(name, type(lhs))
        end
        merged.keys[name] = lhs
      end
    elseif checks[k] == nil then
      return nil, ('unknown option "%s"'):format(tostring(k))
    else
      local err = checks[k](v)
      if err then
        return nil, ('option "%s": %s'):format(k, err)
      end
      merged[k] = v
    end
  end
  return merged
end

return M
