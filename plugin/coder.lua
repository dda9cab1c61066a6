-- coder-nvim: only the :Coder command is defined at startup; everything
-- else loads on first use (see :help coder).
if vim.g.loaded_coder == 1 or vim.fn.has('nvim-0.7') == 0 then
  return
end
vim.g.loaded_coder = 1

-- :help coder must work from a fresh checkout (make run, a plugin manager
-- that does not run :helptags): generate doc/tags once when it is missing.
do
  local doc = vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h:h') .. '/doc'
  local uv = vim.uv or vim.loop
  if not uv.fs_stat(doc .. '/tags') and uv.fs_stat(doc .. '/coder.txt') then
    pcall(vim.cmd, 'silent! helptags ' .. vim.fn.fnameescape(doc))
  end
end

vim.api.nvim_create_user_command('Coder', function(opts)
  require('coder').command(opts)
end, {
  nargs = '*',
  range = true,
  desc = 'coder-nvim: toggle the chat, or send text, /command or !shell',
  complete = function(arglead, cmdline, pos)
    return require('coder').complete(arglead, cmdline, pos)
  end,
})

-- The inline assistant from Visual mode: the command line opens with
-- :'<,'>Coder edit and the instruction is typed after it (:help
-- coder-inline). Map it with e.g. vim.keymap.set('x', '<leader>ce',
-- '<Plug>(coder-edit)').
vim.keymap.set('x', '<Plug>(coder-edit)', ':Coder edit ', { desc = 'coder-nvim: rewrite the selection (inline edit)' })
