-- :Coder tasks and /tasks: the task list buffer, one line a task (the host
-- writes the lines), and its keys: <CR> the task's transcript, gd its
-- diff, gr its hunk-by-hunk review, gm merge (reviewed hunks), gu take
-- the merge back, gM git
-- merge --no-ff, gs stop, gc continue, gx discard, R refresh, g? keys.
-- Every action is the host's (:help coder-tasks).
local M = {}

local api = vim.api
local st = { buf = nil, items = {} }

local function notify(msg, level)
  vim.notify('coder: ' .. tostring(msg), level or vim.log.levels.INFO, { title = 'coder' })
end

local function host()
  return require('coder.host')
end

-- first is the number of the buffer's first task line (after the
-- header, the total and the chat line).
local first = 4

-- render fills the buffer from the host's list.
function M.refresh()
  if not (st.buf and api.nvim_buf_is_valid(st.buf)) then
    return
  end
  local res, err = host().request('coder_tasks')
  if not res then
    return notify(err, vim.log.levels.ERROR)
  end
  st.items = res.items or {}
  local chat = (res.shown == 0 and '▸ ' or '  ') .. '0   chat (the transcript of your own session)'
  local lines = { ' ' .. res.header, ' ' .. res.total .. '  — ' .. res.repo, chat }
  for _, it in ipairs(st.items) do
    table.insert(lines, (res.shown == it.n and '▸' or ' ') .. it.line)
  end
  vim.bo[st.buf].modifiable = true
  api.nvim_buf_set_lines(st.buf, 0, -1, false, lines)
  vim.bo[st.buf].modifiable = false
end

-- current is the task under the cursor (0: the chat line), nil on the
-- header.
local function current()
  local row = api.nvim_win_get_cursor(0)[1]
  if row == first - 1 then
    return 0
  end
  local it = st.items[row - first + 1]
  return it and it.n or nil
end

local function act(action, n)
  n = n or current()
  if not n or (n == 0 and action ~= 'open') then
    return notify('put the cursor on a task line', vim.log.levels.WARN)
  end
  local res, err = host().request('coder_task_action', n, action)
  if res == nil then
    return nil, err
  end
  return res
end

local function say(action)
  return function()
    local res, err = act(action)
    if res == nil then
      if err then
        notify(err, vim.log.levels.ERROR)
      end
      return
    end
    notify(res)
    M.refresh()
  end
end

-- open shows the task's transcript in the chat (input then goes to it).
function M.open_task()
  local n = current()
  if n == nil then
    return
  end
  local res, err = act('open', n)
  if res == nil then
    return notify(err, vim.log.levels.ERROR)
  end
  require('coder').open()
  M.refresh()
end

function M.diff()
  local patch, err = act('diff')
  if patch == nil then
    return notify(err, vim.log.levels.ERROR)
  end
  if patch == '' then
    return notify('the task changed nothing yet')
  end
  require('coder.diffview').open(patch)
end

function M.review()
  local n = current()
  if n and n > 0 then
    require('coder.turnreview').open_task(n)
  end
end

-- discard asks first when the task holds work not merged.
function M.discard()
  local n = current()
  local res, err = act('discard', n)
  if res == nil and err and tostring(err):find('not merged', 1, true) then
    vim.ui.select({ 'Discard it, its worktree and its branch', 'Keep it' }, { prompt = tostring(err):gsub('^.-task', 'task') }, function(_, idx)
      if idx == 1 then
        vim.schedule(function()
          local r, e = act('discard!', n)
          notify(r or e, r and vim.log.levels.INFO or vim.log.levels.ERROR)
          M.refresh()
        end)
      end
    end)
    return
  end
  notify(res or err, res and vim.log.levels.INFO or vim.log.levels.ERROR)
  M.refresh()
end

-- open opens (or shows again) the list buffer.
function M.open()
  if not (st.buf and api.nvim_buf_is_valid(st.buf)) then
    st.buf = api.nvim_create_buf(false, true)
    vim.bo[st.buf].bufhidden = 'hide'
    vim.bo[st.buf].swapfile = false
    pcall(api.nvim_buf_set_name, st.buf, 'coder://tasks')
    vim.bo[st.buf].filetype = 'coder-tasks'
    local function map(lhs, fn, desc)
      vim.keymap.set('n', lhs, fn, { buffer = st.buf, nowait = true, desc = 'coder: ' .. desc })
    end
    map('<CR>', M.open_task, "open the task's transcript (input goes to it); on the chat line, back to the chat")
    map('gd', M.diff, 'the whole diff of the task against its base')
    map('gr', M.review, 'review the task hunk by hunk (ga keep, gr reject)')
    map('gm', say('merge'), 'merge: apply the kept hunks to your working tree, uncommitted')
    map('gu', say('unmerge'), "take back the last gm: files as they were, but those you changed since")
    map('gM', say('merge_branch'), 'merge the branch: git merge --no-ff')
    map('gs', say('stop'), 'stop the task')
    map('gc', say('continue'), 'continue an interrupted, stopped or finished task')
    map('gx', M.discard, 'discard the task: its worktree, and its branch when merged or confirmed')
    map('R', M.refresh, 'refresh the list')
    map('q', '<cmd>close<cr>', 'close the list')
    map('g?', function()
      require('coder.keyhelp').show()
    end, 'list these keys')
  end
  local win = vim.fn.bufwinid(st.buf)
  if win == -1 then
    vim.cmd('botright split')
    api.nvim_win_set_buf(0, st.buf)
    api.nvim_win_set_height(0, math.max(5, math.min(12, #st.items + 4)))
  else
    api.nvim_set_current_win(win)
  end
  M.refresh()
  pcall(api.nvim_win_set_cursor, 0, { math.min(first, api.nvim_buf_line_count(st.buf)), 0 })
  return st.buf
end

-- changed is the host's word that a task changed: a visible list follows.
function M.changed()
  if st.buf and api.nvim_buf_is_valid(st.buf) and vim.fn.bufwinid(st.buf) ~= -1 then
    vim.schedule(M.refresh)
  end
end

-- start runs :Coder task PROMPT (ctx: the selection's lines, appended).
function M.start(args, ctx)
  if vim.trim(args) == '' then
    return notify('usage: :Coder task [--mode MODE] [--from REF] PROMPT (:help coder-tasks)', vim.log.levels.ERROR)
  end
  if ctx then
    args = args .. '\n\n' .. table.concat(ctx, '\n')
  end
  -- A notification: Neovim does not wait while git makes the worktree;
  -- the host says how it went.
  host().notify('coder_task_start', args)
end

return M
