-- Code blocks of the transcript: yank the one under the cursor, jump
-- between them. A block is a Markdown fence (``` or longer, indented as
-- the transcript indents nested answers) and its closing fence.
local M = {}

local api = vim.api

-- blocks lists buf's fenced blocks as { first, last } (1-based fence
-- lines, inclusive); an unclosed last block runs to the end.
function M.blocks(buf)
  local lines = api.nvim_buf_get_lines(buf, 0, -1, false)
  local out = {}
  local open, fence, indent = nil, nil, nil
  for i, l in ipairs(lines) do
    local ind, ticks = l:match('^(%s*)(```+)')
    if open then
      if ticks and #ticks >= #fence and l:match('^%s*`+%s*$') then
        table.insert(out, { open, i, indent = indent })
        open = nil
      end
    elseif ticks then
      open, fence, indent = i, ticks, #ind
    end
  end
  if open then
    table.insert(out, { open, #lines, indent = indent })
  end
  return out
end

-- at returns the block at row (1-based), on its fences or inside.
local function at(buf, row)
  for _, b in ipairs(M.blocks(buf)) do
    if row >= b[1] and row <= b[2] then
      return b
    end
  end
end

-- yank copies the code of the block under the cursor (without its
-- fences and the transcript's indentation) into the register given
-- (v:register: "ayy-style "agy works), linewise.
function M.yank()
  local buf = api.nvim_get_current_buf()
  local row = api.nvim_win_get_cursor(0)[1]
  local b = at(buf, row)
  if not b then
    vim.notify('coder: no code block under the cursor', vim.log.levels.INFO, { title = 'coder' })
    return nil
  end
  local last = b[2]
  local closing = api.nvim_buf_get_lines(buf, last - 1, last, false)[1] or ''
  if last > b[1] and closing:match('^%s*```+%s*$') then
    last = last - 1
  end
  local lines = api.nvim_buf_get_lines(buf, b[1], last, false)
  for i, l in ipairs(lines) do
    lines[i] = l:sub(1, b.indent):match('^%s*$') and l:sub(b.indent + 1) or l
  end
  local reg = vim.v.register
  vim.fn.setreg(reg, lines, 'l')
  vim.notify(('coder: yanked %d lines'):format(#lines), vim.log.levels.INFO, { title = 'coder' })
  return lines
end

-- jump moves the cursor to the first line of the next (dir 1) or
-- previous (dir -1) code block's code; count repeats it.
function M.jump(dir)
  local buf = api.nvim_get_current_buf()
  local row = api.nvim_win_get_cursor(0)[1]
  local blocks = M.blocks(buf)
  for _ = 1, math.max(1, vim.v.count) do
    local target
    if dir > 0 then
      for _, b in ipairs(blocks) do
        if b[1] + 1 > row then
          target = b[1] + 1
          break
        end
      end
    else
      for i = #blocks, 1, -1 do
        if blocks[i][1] + 1 < row then
          target = blocks[i][1] + 1
          break
        end
      end
    end
    if not target then
      break
    end
    row = math.min(target, api.nvim_buf_line_count(buf))
  end
  api.nvim_win_set_cursor(0, { row, 0 })
  return row
end

return M
