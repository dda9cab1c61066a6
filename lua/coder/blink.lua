-- blink.cmp source for the chat input (registered by coder.cmp when
-- blink.cmp is installed).
local source = {}

function source.new()
  return setmetatable({}, { __index = source })
end

function source:enabled()
  return vim.bo.filetype == 'coder-input'
end

function source:get_trigger_characters()
  return { '@', '#', '/' }
end

function source:get_completions(ctx, callback)
  local kinds = require('blink.cmp.types').CompletionItemKind
  local row = ctx.cursor[1]
  local before = ctx.line:sub(1, ctx.cursor[2])
  local done = false
  require('coder.cmp').request(before, row, function(items, start, final)
    if done or (items and not final) then
      return
    end
    if items == nil then
      done = true
      callback({ items = {}, is_incomplete_forward = false, is_incomplete_backward = false })
      return
    end
    done = true
    local out = require('coder.cmp').lsp_items(items, kinds)
    for _, it in ipairs(out) do
      it.textEdit = {
        newText = it.insertText,
        range = { start = { line = row - 1, character = start }, ['end'] = { line = row - 1, character = ctx.cursor[2] } },
      }
    end
    callback({ items = out, is_incomplete_forward = true, is_incomplete_backward = true })
  end)
end

return source
