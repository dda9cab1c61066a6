-- :Coder rewind: pick a turn of the session and go back to just before it
-- (/rewind N). The list and the rewind are the host's; this only shows the
-- picker (:help coder-rewind).
local M = {}

-- pick runs :Coder rewind [N]: with N, rewind at once; without, choose
-- the turn from the host's list with vim.ui.select.
function M.pick(arg)
  local coder = require('coder')
  if arg ~= '' then
    return coder.send('/rewind ' .. arg)
  end
  local items, err = require('coder.host').request('coder_rewind')
  if not items then
    vim.notify('coder: ' .. tostring(err), vim.log.levels.ERROR, { title = 'coder' })
    return
  end
  if #items == 0 then
    vim.notify('coder: no turns to rewind to', vim.log.levels.INFO, { title = 'coder' })
    return
  end
  vim.ui.select(items, {
    prompt = 'Rewind to just before turn (its files and the later turns are taken back):',
    format_item = function(item)
      return item.label
    end,
  }, function(item)
    if item then
      vim.schedule(function()
        coder.send('/rewind ' .. item.n)
      end)
    end
  end)
end

return M
