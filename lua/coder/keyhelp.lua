-- The `g?` key (keys.help) of the chat's buffers: a float listing the keys
-- that work there (the plugin's buffer-local mappings, with their
-- descriptions).
local M = {}

local api = vim.api

-- help_key is keys.help, or nil when unmapped.
local function help_key()
  local k = require('coder.config').current.keys.help
  return type(k) == 'string' and k ~= '' and k or nil
end

-- lines lists buf's coder mappings, Normal mode first.
function M.lines(buf)
  local out = {}
  for _, mode in ipairs({ 'n', 'i' }) do
    local rows = {}
    for _, m in ipairs(api.nvim_buf_get_keymap(buf, mode)) do
      local desc = m.desc or ''
      if desc:sub(1, 7) == 'coder: ' then
        table.insert(rows, ('  %-10s %s'):format(m.lhs, desc:sub(8)))
      end
    end
    table.sort(rows)
    if #rows > 0 then
      table.insert(out, mode == 'n' and ' Normal mode' or ' Insert mode')
      vim.list_extend(out, rows)
    end
  end
  local help = help_key()
  table.insert(out, (' (q, <Esc>%s closes this)'):format(help and (' or ' .. help) or ''))
  return out
end

-- show opens the list for the current buffer.
function M.show()
  local lines = M.lines(api.nvim_get_current_buf())
  local width = 20
  for _, l in ipairs(lines) do
    width = math.max(width, vim.fn.strdisplaywidth(l) + 1)
  end
  local buf = api.nvim_create_buf(false, true)
  api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].modifiable = false
  vim.bo[buf].bufhidden = 'wipe'
  vim.bo[buf].filetype = 'coder-keys'
  local win = api.nvim_open_win(buf, true, {
    relative = 'editor', row = 1, col = math.max(0, vim.o.columns - width - 4),
    width = math.min(width, vim.o.columns - 2), height = math.min(#lines, vim.o.lines - 4),
    border = 'rounded', style = 'minimal', zindex = 90,
  })
  for _, lhs in ipairs({ 'q', '<Esc>', help_key() }) do
    vim.keymap.set('n', lhs, function()
      if api.nvim_win_is_valid(win) then
        api.nvim_win_close(win, true)
      end
    end, { buffer = buf, nowait = true })
  end
  return buf
end

return M
