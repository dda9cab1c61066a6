-- Highlight groups, all defined with default = true so a colorscheme or
-- the user can override them.
local M = {}

M.groups = {
  CoderHeader = { link = 'Title' },
  CoderDemo = { link = 'WarningMsg' },
  CoderUser = { link = 'Title' },
  CoderAgent = { link = 'Title' },
  CoderReasoning = { link = 'Comment' },
  CoderToolRunning = { link = 'Special' },
  CoderToolOk = { link = 'Function' },
  CoderToolFailed = { link = 'ErrorMsg' },
  CoderToolOutput = { link = 'Comment' },
  CoderGutter = { link = 'Comment' },
  CoderDiffAdd = { link = 'DiffAdd' },
  CoderDiffDelete = { link = 'DiffDelete' },
  CoderDiffHunk = { link = 'DiffText' },
  CoderApprovalLine = { link = 'WarningMsg' },
  CoderError = { link = 'ErrorMsg' },
  CoderNotice = { link = 'Comment' },
  CoderCommandOutput = { link = 'Normal' },
  CoderTodo = { link = 'Todo' },
  CoderStatus = { link = 'StatusLine' },
  CoderPrompt = { link = 'Question' },
  CoderUnseen = { link = 'WarningMsg' },
  CoderApprovalTitle = { link = 'Title' },
  CoderApprovalBorder = { link = 'WarningMsg' },
  CoderHunkCurrent = { link = 'IncSearch' },
  CoderHunkAccepted = { link = 'DiffAdd' },
  CoderHunkRejected = { link = 'Comment' },
  CoderReviewComment = { link = 'DiagnosticInfo' },
}

local defined = false

function M.define(force)
  if defined and not force then
    return
  end
  defined = true
  for name, def in pairs(M.groups) do
    local d = vim.deepcopy(def)
    d.default = true
    pcall(vim.api.nvim_set_hl, 0, name, d)
  end
  if not M.au then
    -- Colorschemes clear highlights: define the defaults again.
    M.au = vim.api.nvim_create_autocmd('ColorScheme', {
      group = vim.api.nvim_create_augroup('CoderHighlights', { clear = true }),
      callback = function()
        M.define(true)
      end,
    })
  end
end

return M
