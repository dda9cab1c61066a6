-- coder-nvim: a coding agent in Neovim. The agent runs in the Go host
-- (bin/coder-nvim); this plugin shows its stream and forwards input. See
-- :help coder.
local M = {}

-- last_event is the most recent User autocmd pattern and data, for Neovim
-- 0.7 where autocmds carry no data.
M.last_event = nil

local function host()
  return require('coder.host')
end

local function ui()
  return require('coder.ui')
end

-- setup validates opts and applies them; on a bad option it reports one
-- error naming it and changes nothing. It returns whether opts applied.
function M.setup(opts)
  local config = require('coder.config')
  local merged, err = config.validate(opts)
  if not merged then
    vim.notify('coder: ' .. err, vim.log.levels.ERROR, { title = 'coder' })
    return false
  end
  config.current = merged
  if package.loaded['coder.ui'] then
    ui().set_keys()
  end
  return true
end

-- open shows the chat window and starts the host.
function M.open()
  ui().open(true)
  host().ensure()
  require('coder.statusline').render_status()
end

function M.close()
  ui().close()
end

function M.toggle()
  if ui().is_open() then
    M.close()
  else
    M.open()
  end
end

-- stop interrupts the running turn.
function M.stop()
  if host().running() then
    host().notify('coder_cancel')
    require('coder.inline').cancel()
  end
end

-- send runs input exactly as typed in the input buffer: text for the
-- agent, /command or !shell command. It returns whether the text reached
-- the host.
function M.send(text)
  if not ui().is_open() then
    ui().open(false)
  end
  -- The editor's mentions (#buffer …) are gathered now, as the text is
  -- sent; the host resolves @path and #diff (:help coder-context).
  local items = {}
  local lead = vim.trim(text):sub(1, 1)
  if lead ~= '/' and lead ~= '!' then
    items = require('coder.context').gather(text)
  end
  local sent
  if #items > 0 then
    sent = host().notify('coder_submit', text, items)
  else
    sent = host().notify('coder_submit', text)
  end
  if sent then
    require('coder.statusline').render_status()
    return true
  end
  return false
end

-- status is a short string for statuslines: "" when the host is not
-- running.
function M.status()
  if not host().running() then
    return ''
  end
  return 'coder: ' .. require('coder.statusline').status_text():gsub('^coder: ', '')
end

-- state returns the last status table from the host (model, mode, preset,
-- context_tokens, cwd, demo, busy, session_id), or nil.
function M.state()
  return require('coder.ui').state.status
end

local subcommands = { 'open', 'close', 'toggle', 'stop', 'conversations', 'conversation', 'trust', 'edit', 'rewind', 'review', 'task', 'tasks', 'mcp' }

local function notify_err(err)
  vim.notify('coder: ' .. tostring(err), vim.log.levels.ERROR, { title = 'coder' })
end

-- The form of :Coder conversation new without arguments: one question per
-- setting; an empty answer keeps the default, <Esc> cancels. The keys are
-- the host's (agent.NewKeys).
local form_fields = {
  { 'instructions', 'Base instructions (text or @file; empty: built-in): ' },
  { 'user', 'User instructions, its first message (empty: none): ' },
  { 'mcp', 'MCP tools (a__b,c__d or none; empty: all): ' },
  { 'model', "Model (empty: the session's): " },
  { 'storage', 'Storage (full, headers_only, none, ttl; empty: as the session): ' },
  { 'preset', "Permission preset (strict, balanced, auto-edit; empty: the session's): " },
}

local function ask_form(i, answers, done)
  local f = form_fields[i]
  if not f then
    return done(answers)
  end
  vim.ui.input({ prompt = f[2] }, function(value)
    if value == nil then
      return -- cancelled
    end
    answers[f[1]] = value
    vim.schedule(function()
      ask_form(i + 1, answers, done)
    end)
  end)
end

-- conversation runs :Coder conversation new [ARGS] and :Coder conversation
-- set KEY VALUE: open a conversation (and send the input to it), or change
-- the context of the one input goes to. Parsing and checks are the host's.
function M.conversation(arg)
  local verb, rest = arg:match('^(%S*)%s*(.-)%s*$')
  local h = host()
  if verb == 'new' then
    local function open(form)
      if not ui().is_open() then
        ui().open(false)
      end
      local res, err = h.request('coder_conversation_new', rest, form)
      if not res then
        return notify_err(err)
      end
      local level = #res.clamped > 0 and vim.log.levels.WARN or vim.log.levels.INFO
      vim.notify('coder: ' .. res.text, level, { title = 'coder' })
      require('coder.statusline').render_status()
    end
    if rest == '' then
      return ask_form(1, {}, open)
    end
    return open(vim.empty_dict())
  elseif verb == 'set' and rest ~= '' then
    local text, err = h.request('coder_conversation_set', rest)
    if not text then
      return notify_err(err)
    end
    vim.notify('coder: ' .. text, text:find('\nclamped:') and vim.log.levels.WARN or vim.log.levels.INFO, { title = 'coder' })
    return
  end
  notify_err('usage: :Coder conversation new [KEY=VALUE ...] [FIRST MESSAGE] | :Coder conversation set KEY VALUE (:help coder-conversation)')
end

-- conversations runs :Coder conversations [root]: pick a conversation,
-- then open its transcript read-only or send the input to it. The list
-- and the transcript come from the host.
function M.conversations(arg)
  local h = host()
  if arg == 'root' then
    local _, err = h.request('coder_target', '')
    if err then
      vim.notify('coder: ' .. tostring(err), vim.log.levels.ERROR, { title = 'coder' })
    end
    return
  end
  local items, err = h.request('coder_conversations')
  if not items then
    vim.notify('coder: ' .. tostring(err), vim.log.levels.ERROR, { title = 'coder' })
    return
  end
  vim.ui.select(items, {
    prompt = 'Conversation:',
    format_item = function(item)
      return item.label
    end,
  }, function(item)
    if not item then
      return
    end
    vim.schedule(function()
      local actions = { 'Open its transcript (read-only)', 'Send the input to it' }
      vim.ui.select(actions, { prompt = 'Conversation ' .. item.id:sub(1, 8) .. ':' }, function(_, idx)
        if idx == 1 then
          local chunks, e = h.request('coder_transcript', item.id)
          if not chunks then
            vim.notify('coder: ' .. tostring(e), vim.log.levels.ERROR, { title = 'coder' })
            return
          end
          require('coder.transcript').show_conversation(item.id, chunks)
        elseif idx == 2 then
          local _, e = h.request('coder_target', item.root and '' or item.id)
          if e then
            vim.notify('coder: ' .. tostring(e), vim.log.levels.ERROR, { title = 'coder' })
          end
        end
      end)
    end)
  end)
end

-- selection_context formats lines line1..line2 of the current buffer with
-- the file path and line numbers.
local function selection_context(line1, line2)
  local buf = vim.api.nvim_get_current_buf()
  local name = vim.api.nvim_buf_get_name(buf)
  local path = name ~= '' and vim.fn.fnamemodify(name, ':.') or '[No Name]'
  local lines = vim.api.nvim_buf_get_lines(buf, line1 - 1, line2, false)
  local out = { ('%s:%d-%d'):format(path, line1, line2), '```' .. (vim.bo[buf].filetype or '') }
  vim.list_extend(out, lines)
  table.insert(out, '```')
  return out
end

-- command runs :Coder.
function M.command(opts)
  local args = vim.trim(opts.args or '')
  if args == 'edit' or args:match('^edit%s') then
    -- The inline assistant (:help coder-inline).
    require('coder.inline').start(args:sub(5), opts.range, opts.line1, opts.line2)
    return
  end
  -- :Coder #buffer … from a file means that file.
  if args == 'tasks' then
    host().ensure()
    require('coder.tasks').open()
    return
  end
  local task = args == 'task' or args:match('^task%s') ~= nil
  require('coder.context').remember(vim.api.nvim_get_current_buf())
  local ctx = nil
  if opts.range and opts.range > 0 then
    local buf = vim.api.nvim_get_current_buf()
    if vim.bo[buf].filetype ~= 'coder' and vim.bo[buf].filetype ~= 'coder-input' then
      ctx = selection_context(opts.line1, opts.line2)
    end
  end
  if task then
    require('coder.tasks').start(args:sub(#'task' + 1), ctx)
    return
  end
  if ctx then
    if args == '' then
      -- No text: put the selection in the input so the user can ask.
      ui().open(true)
      require('coder.input').add_context(ctx)
      host().ensure()
      return
    end
    M.send(args .. '\n\n' .. table.concat(ctx, '\n'))
    return
  end
  if args == '' or args == 'toggle' then
    M.toggle()
  elseif args == 'open' then
    M.open()
  elseif args == 'close' then
    M.close()
  elseif args == 'stop' then
    M.stop()
  elseif args == 'trust' then
    require('coder.trust').reopen()
  elseif args == 'conversations' or args:match('^conversations%s') then
    M.conversations(vim.trim(args:sub(#'conversations' + 1)))
  elseif args == 'review send' then
    require('coder.comments').send()
  elseif args == 'review' or args:match('^review%s') then
    require('coder.turnreview').open(vim.trim(args:sub(#'review' + 1)))
  elseif args == 'rewind' or args:match('^rewind%s') then
    require('coder.rewind').pick(vim.trim(args:sub(#'rewind' + 1)))
  elseif args == 'conversation' or args:match('^conversation%s') then
    M.conversation(vim.trim(args:sub(#'conversation' + 1)))
  elseif args == 'mcp' or args:match('^mcp%s') then
    M.send(vim.trim('/mcp ' .. vim.trim(args:sub(#'mcp' + 1)))) -- servers, login NAME, logout NAME
  else
    M.send(args)
  end
end

-- complete completes the first word of :Coder.
function M.complete(arglead, cmdline, _)
  local before = cmdline:gsub('^%s*%S+%s*', '', 1)
  if before:find('%s') then
    return {}
  end
  local out = {}
  local cands = vim.deepcopy(subcommands)
  if arglead == '' or arglead:sub(1, 1) == '/' then
    local names = host().state.commands
    -- Listing commands is a first use: start the host only when asked for
    -- a /command.
    if not names and arglead ~= '' and host().ensure() then
      names = host().request('coder_commands')
    end
    for _, n in ipairs(names or {}) do
      table.insert(cands, '/' .. n)
    end
  end
  for _, c in ipairs(cands) do
    if vim.startswith(c, arglead) then
      table.insert(out, c)
    end
  end
  return out
end

return M
