-- Requests from the host shown one at a time, later ones waiting behind
-- the one shown: the approval float and the plan buffer. The owner keeps
-- what is shown; this keeps what waits.
local M = {}

-- new returns the waiting list of an owner whose hooks are: shown() the
-- id of the request shown now (nil when none), show(req) to show one, and
-- teardown() to close the one shown.
function M.new(hooks)
  local waiting = {}
  local p = {}

  -- next shows the first waiting request unless one is shown.
  function p.next()
    if hooks.shown() ~= nil then
      return
    end
    local req = table.remove(waiting, 1)
    if req then
      hooks.show(req)
    end
  end

  -- push adds a request from the host.
  function p.push(req)
    table.insert(waiting, req)
    p.next()
  end

  -- closed drops request id, resolved by the host on its own (an
  -- interrupted turn): closed if shown, else taken off the list.
  function p.closed(id)
    if hooks.shown() == id then
      hooks.teardown()
      p.next()
      return
    end
    for i, r in ipairs(waiting) do
      if r.id == id then
        table.remove(waiting, i)
        return
      end
    end
  end

  -- reset drops everything (the host died).
  function p.reset()
    waiting = {}
    hooks.teardown()
  end

  -- find is waiting request id, or nil.
  function p.find(id)
    for _, r in ipairs(waiting) do
      if r.id == id then
        return r
      end
    end
  end

  -- len is how many wait.
  function p.len()
    return #waiting
  end

  return p
end

-- close_float closes an owner's float c ({win, buf, prev}) and gives the
-- cursor back to c.prev when it was in the float.
function M.close_float(c)
  local api = vim.api
  local ui = require('coder.ui')
  local was_current = ui.valid_win(c.win) and api.nvim_get_current_win() == c.win
  if ui.valid_win(c.win) then
    pcall(api.nvim_win_close, c.win, true)
  end
  if ui.valid_buf(c.buf) then
    pcall(api.nvim_buf_delete, c.buf, { force = true })
  end
  if was_current and ui.valid_win(c.prev) then
    pcall(api.nvim_set_current_win, c.prev)
  end
end

-- focus_float moves the cursor into an owner's float c; false when none
-- is shown.
function M.focus_float(c)
  if c and require('coder.ui').valid_win(c.win) then
    vim.api.nvim_set_current_win(c.win)
    return true
  end
  return false
end

-- answer_on_close calls answer() when float win is closed (:q, CTRL-W c)
-- while shown() is still true: a request without a float would leave the
-- host waiting for good.
function M.answer_on_close(win, shown, answer)
  vim.api.nvim_create_autocmd('WinClosed', {
    pattern = tostring(win),
    once = true,
    callback = function()
      vim.schedule(function()
        if shown() then
          answer()
        end
      end)
    end,
  })
end

return M
