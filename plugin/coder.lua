-- coder-nvim: only the :Coder command is defined at startup; everything
-- else loads on first use (see :help coder).
if vim.g.loaded_coder == 1 or vim.fn.has('nvim-0.7') == 0 then
  return
end
vim.g.loaded_coder = 1

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
