-- Entry points the Go host calls with nvim_exec_lua. apply() receives
-- batches of small operations rendered in Go; it must stay cheap, since it
-- runs on Neovim's main loop.
local M = {}

local transcript = require('coder.transcript')
local statusline = require('coder.statusline')

local function autocmd(pattern, data)
  require('coder').last_event = { pattern = pattern, data = data }
  local opts = { pattern = pattern, modeline = false }
  if vim.fn.has('nvim-0.8') == 1 then
    opts.data = data
  end
  pcall(vim.api.nvim_exec_autocmds, 'User', opts)
end

local handlers = {}

function handlers.text(o)
  transcript.append(o.c)
end

-- complete: the host's answer to a completion request.
function handlers.complete(o)
  require('coder.complete').answer(o)
end

function handlers.fold(o)
  transcript.mark_fold(o.id)
end

-- review_mark: the line above is a turn's summary (keys.review_turn).
function handlers.review_mark(o)
  transcript.mark_review(o.n)
end

function handlers.rewrite(o)
  transcript.rewrite_last(o.s, o.hl)
end

-- tool_mark marks a running call's line, which its streamed output goes
-- under; rewrite_mark turns it into the call's summary at its end.
function handlers.tool_mark(o)
  transcript.mark_tool(o.id)
end

function handlers.rewrite_mark(o)
  transcript.rewrite_tool(o.id, o.s, o.hl)
end

-- fold_start / fold_end bracket a hand-over's block (Go decides where).
function handlers.fold_start(_)
  transcript.fold_start()
end

function handlers.fold_end(o)
  transcript.fold_end(o.closed)
end

function handlers.status(o)
  if o.status and o.status.session_id and o.status.session_id ~= '' then
    require('coder.host').state.session_id = o.status.session_id
  end
  statusline.set_status(o.status)
end

function handlers.ready(o)
  local host = require('coder.host')
  host.state.ready = true
  host.state.session_id = o.session_id
  host.state.commands = o.commands
  host.state.command_help = o.command_help
  host.state.version = o.version
  host.check_version(o.version)
  transcript.ensure_line_start()
end

-- commands: the / commands changed (an MCP server's prompts).
function handlers.commands(o)
  local host = require('coder.host')
  host.state.commands = o.commands
  host.state.command_help = o.command_help
end

function handlers.turn_start(o)
  require('coder.notify').turn_started(o.input)
  autocmd('CoderTurnStart', { task = o.task, input = o.input })
end

-- turn_words are what a turn's end says in a notice, by its reason (a
-- command's end and a hand-over say nothing).
local turn_words = {
  interrupted = { 'turn_interrupted', 'the turn was interrupted' },
  error = { 'turn_failed', 'the turn failed' },
  max_steps = { 'turn_done', 'the turn stopped at max_steps' },
  refusal = { 'turn_failed', 'the provider refused the answer' },
}

function handlers.turn_done(o)
  -- Files may have changed: @ completion asks the host again.
  require('coder.complete').forget()
  if require('coder.config').current.reload then
    M.reload(nil)
  end
  autocmd('CoderTurnDone', { task = o.task, reason = o.reason })
  if o.reason ~= 'command' and o.reason ~= 'replaced' then
    local w = turn_words[o.reason] or { 'turn_done', 'the turn is done' }
    require('coder.notify').turn('turn:' .. tostring(o.task), w[1], w[2])
  end
end

function handlers.approval(o)
  if o.approval.plan then
    require('coder.plan').push(o.approval)
  elseif o.approval.elicitation then
    require('coder.elicit').push(o.approval)
  else
    require('coder.approval').push(o.approval)
  end
  local a = o.approval
  if (a.label or '') == '' then -- a task's approval has its own notice
    require('coder.notify').turn('approval:' .. tostring(a.id), 'turn_waiting', 'waiting for your answer: ' .. tostring(a.title or a.tool))
  end
  autocmd('CoderApproval', {
    id = a.id,
    tool = a.tool,
    title = a.title,
    command = a.command,
    paths = a.paths,
    reason = a.reason,
    scope = a.scope,
  })
end

function handlers.open_url(o)
  require('coder.elicit').open(o.url, o.what)
end

function handlers.approval_closed(o)
  require('coder.approval').closed(o.id)
  require('coder.plan').closed(o.id)
  require('coder.elicit').closed(o.id)
end

function handlers.reload(o)
  if require('coder.config').current.reload then
    M.reload(o.paths)
  end
end

-- input_rejected: the host refused input (a turn is running). Give the
-- text back to the input if the user has not typed something new.
function handlers.input_rejected(o)
  if o.msg and o.msg ~= '' then -- empty: the chat said why
    vim.notify(o.msg, vim.log.levels.WARN, { title = 'coder' })
  end
  local b = require('coder.input').input_buf()
  local cur = vim.api.nvim_buf_get_lines(b, 0, -1, false)
  if #cur <= 1 and (cur[1] or '') == '' and o.text then
    vim.api.nvim_buf_set_lines(b, 0, -1, false, vim.split(o.text, '\n', { plain = true }))
  end
end

-- pick_session: a bare /resume; the host lists the saved sessions and
-- gets the choice back as `/resume ID`.
-- The picker opens after apply() returns: the default vim.ui.select waits
-- for the user inside inputlist(), and the host must not wait with it.
function handlers.pick_session(o)
  vim.schedule(function()
    vim.ui.select(o.items, {
      prompt = 'Resume session:',
      format_item = function(item)
        return item.label
      end,
    }, function(item)
      if item then
        require('coder.host').notify('coder_submit', '/resume ' .. item.id)
      end
    end)
  end)
end

-- pick_model: /model without a name; the picker opens after the command
-- ended and sends the choice back as `/model NAME`.
function handlers.pick_model(o)
  vim.api.nvim_create_autocmd('User', {
    pattern = 'CoderTurnDone',
    once = true,
    callback = function()
      vim.schedule(function()
        vim.ui.select(o.models or {}, {
          prompt = 'Model (now ' .. tostring(o.current) .. '):',
        }, function(name)
          if name then
            require('coder.host').notify('coder_submit', '/model ' .. name)
          end
        end)
      end)
    end,
  })
end

-- undo_others: /undo left files changed by others (other sessions, you)
-- alone; ask whether to revert them too, once the /undo is over (the
-- answer is a new command).
function handlers.undo_others(o)
  vim.api.nvim_create_autocmd('User', {
    pattern = 'CoderTurnDone',
    once = true,
    callback = function()
      vim.schedule(function()
        M.ask_undo_others(o)
      end)
    end,
  })
end

-- ask_undo_others puts the question of undo_others.
function M.ask_undo_others(o)
  local paths = o.paths or {}
  vim.ui.select({ 'Leave them alone', 'Revert them too' }, {
    prompt = ('/undo left %d file(s) changed by others during the turn (%s):'):format(#paths, table.concat(paths, ', ')),
  }, function(choice)
    if choice == 'Revert them too' then
      require('coder.host').notify('coder_submit', '/undo others')
    end
  end)
end

-- trust: the workspace's .coder/config.json is not trusted; ask the user
-- after apply() returns (the host is not kept waiting).
function handlers.trust(o)
  vim.schedule(function()
    require('coder.trust').show(o)
  end)
end

-- inline_review / inline_failed: the answer to a :Coder edit.
function handlers.inline_review(o)
  require('coder.inline').review(o)
end

function handlers.inline_failed(o)
  require('coder.inline').failed(o)
end

function handlers.diff_view(o)
  require('coder.diffview').open(o.diff)
end

function handlers.review_comments_sent()
  require('coder.comments').sent()
end

-- tasks: the tasks at work changed (o.segment, for the status line) or
-- the transcript shows another session (o.shown: its label, '' the chat).
function handlers.tasks(o)
  statusline.set_tasks(o)
  require('coder.tasks').changed()
end

-- notice: something needs the user while they are elsewhere (a task done
-- or waiting): coder.notify says it, once.
function handlers.notice(o)
  require('coder.notify').notice(o)
end

function handlers.open_tasks(_)
  require('coder.tasks').open()
end

function handlers.notify(o)
  local level = ({ error = vim.log.levels.ERROR, warn = vim.log.levels.WARN })[o.level] or vim.log.levels.INFO
  vim.notify(o.msg, level, { title = 'coder' })
end

-- apply runs one batch of operations in order. One failing operation does
-- not drop the rest.
function M.apply(ops)
  for _, o in ipairs(ops or {}) do
    local h = handlers[o.t]
    if h then
      local ok, err = pcall(h, o)
      if not ok then
        vim.schedule(function()
          vim.notify('coder: ' .. tostring(o.t) .. ': ' .. tostring(err), vim.log.levels.ERROR, { title = 'coder' })
        end)
      end
    end
  end
  return true
end

local function realpath(p)
  return vim.loop.fs_realpath(p) or vim.fn.fnamemodify(p, ':p')
end

-- buffers_for returns the loaded file buffers whose file is abs.
local function buffers_for(abs)
  local out = {}
  local want = realpath(abs)
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(b) and vim.bo[b].buftype == '' then
      local name = vim.api.nvim_buf_get_name(b)
      if name ~= '' and (name == abs or realpath(name) == want) then
        table.insert(out, b)
      end
    end
  end
  return out
end

-- buffer_modified is the write guard: does a buffer of abs hold unsaved
-- edits? The host asks before every agent write.
function M.buffer_modified(abs)
  for _, b in ipairs(buffers_for(abs)) do
    if vim.bo[b].modified then
      return true
    end
  end
  return false
end

-- reload re-reads unmodified buffers of the given files (nil: every
-- buffer whose file changed on disk). Buffers with unsaved edits are never
-- touched.
function M.reload(paths)
  if paths == nil then
    local group = vim.api.nvim_create_augroup('CoderReload', { clear = true })
    vim.api.nvim_create_autocmd('FileChangedShell', {
      group = group,
      callback = function(args)
        if vim.bo[args.buf].modified or vim.v.fcs_reason == 'deleted' then
          vim.v.fcs_choice = ''
        else
          vim.v.fcs_choice = 'reload'
        end
      end,
    })
    vim.api.nvim_create_autocmd('FileChangedShellPost', {
      group = group,
      callback = function(args)
        require('coder.lsp').reloaded(args.buf)
      end,
    })
    pcall(vim.cmd, 'silent! checktime')
    vim.api.nvim_del_augroup_by_id(group)
    return
  end
  for _, p in ipairs(paths) do
    for _, b in ipairs(buffers_for(p)) do
      -- coder_hidden: loaded by coder.lsp for diagnostics, current already.
      if not vim.bo[b].modified and not vim.b[b].coder_hidden then
        local views = {}
        for _, w in ipairs(vim.fn.win_findbuf(b)) do
          views[w] = vim.api.nvim_win_call(w, vim.fn.winsaveview)
        end
        if vim.fn.filereadable(vim.api.nvim_buf_get_name(b)) == 1 then
          vim.api.nvim_buf_call(b, function()
            vim.cmd('silent! edit')
          end)
          require('coder.lsp').reloaded(b)
        else
          -- The file was removed (e.g. /undo of the turn that created it):
          -- drop the unmodified buffer so a later :w cannot bring it back.
          -- Windows showing it keep their place with another buffer.
          for _, w in ipairs(vim.fn.win_findbuf(b)) do
            views[w] = nil
            vim.api.nvim_win_call(w, function()
              local alt = vim.fn.bufnr('#')
              if alt > 0 and alt ~= b and vim.fn.buflisted(alt) == 1 then
                vim.cmd('silent! buffer ' .. alt)
              else
                vim.cmd('silent! enew')
              end
            end)
          end
          pcall(vim.api.nvim_buf_delete, b, {})
        end
        for w, view in pairs(views) do
          if vim.api.nvim_win_is_valid(w) then
            pcall(vim.api.nvim_win_call, w, function()
              vim.fn.winrestview(view)
            end)
          end
        end
      end
    end
  end
end

-- host_died cleans up after the host process exited.
function M.host_died(msg)
  require('coder.approval').reset()
  require('coder.plan').reset()
  require('coder.elicit').reset()
  statusline.set_status(nil)
  transcript.append({ { '\n✗ ' .. msg .. '\n', 'CoderError' } }, true)
end

return M
