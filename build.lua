-- The plugin's build step: lazy.nvim runs this file after install and
-- update (as does `:luafile build.lua`). It installs the host binary for
-- this machine and the plugin's VERSION into bin/ through
-- scripts/install-binary.sh (PowerShell's install-binary.ps1 on Windows
-- without sh): the release's binary checked against its SHA256SUMS, or a
-- build from source when the download fails and Go is here. See
-- :help coder-install.
local root = vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h')
local cmd
if vim.fn.has('win32') == 1 and vim.fn.executable('sh') ~= 1 then
  cmd = { 'powershell', '-NoProfile', '-ExecutionPolicy', 'Bypass', '-File', root .. '/scripts/install-binary.ps1' }
else
  cmd = { 'sh', root .. '/scripts/install-binary.sh' }
end
local out = vim.fn.system(cmd)
local lines = vim.split(vim.trim(out or ''), '\n', { plain = true })
if vim.v.shell_error ~= 0 then
  error(table.concat(lines, '\n'), 0)
end
for _, line in ipairs(lines) do
  print(line)
end
