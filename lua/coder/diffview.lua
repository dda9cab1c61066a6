-- A read-only buffer showing a whole diff (from /diff), folded per file.
local M = {}

-- foldexpr: a fold starts at each file header of git's diff format.
function M.foldexpr(lnum)
  if vim.fn.getline(lnum):match('^diff %-%-git ') then
    return '>1'
  end
  return '='
end

function M.open(text)
  -- /diff sent from the input in Insert mode: the read-only tab opens in
  -- Normal mode.
  vim.cmd('stopinsert')
  vim.cmd('tabnew')
  local buf = vim.api.nvim_get_current_buf()
  vim.bo[buf].buftype = 'nofile'
  vim.bo[buf].bufhidden = 'wipe'
  vim.bo[buf].swapfile = false
  pcall(vim.api.nvim_buf_set_name, buf, 'coder://diff')
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, vim.split(text, '\n', { plain = true }))
  vim.bo[buf].modifiable = false
  vim.bo[buf].filetype = 'diff'
  local win = vim.api.nvim_get_current_win()
  vim.wo[win].foldmethod = 'expr'
  vim.wo[win].foldexpr = "v:lua.require'coder.diffview'.foldexpr(v:lnum)"
  vim.wo[win].foldlevel = 0
  vim.keymap.set('n', 'q', '<cmd>tabclose<cr>', { buffer = buf, nowait = true, desc = 'coder: close the diff' })
  return buf
end

return M
