-- nvim-cmp and blink.cmp sources for the chat input, registered only when
-- those plugins are installed (triggered by @ # /). Both ask
-- coder.complete, which answers from what is ready and asks the host for
-- the rest without waiting.
local M = {}

-- registered: the plugins given the coder source.
local registered = { cmp = false, blink = false }

local function complete()
  return require('coder.complete')
end

-- lsp_items turns omnifunc items into LSP-style completion items.
local function lsp_items(items, kinds)
  local out = {}
  for _, it in ipairs(items) do
    local k = kinds.Text
    if it.menu == '[file]' then
      k = kinds.File
    elseif it.menu == '[dir]' then
      k = kinds.Folder
    elseif it.word:sub(1, 1) == '#' or it.word:sub(1, 1) == '/' then
      k = kinds.Keyword
    end
    table.insert(out, { label = it.word, insertText = it.word, filterText = it.word, kind = k, detail = it.menu })
  end
  return out
end

-- request runs a completion for the text before the cursor: done(items,
-- start, final) is called at once with what is ready and, when the host
-- was asked, again with its answer (final). items nil: nothing to
-- complete here.
local function request(before, row, done)
  local kind, start, query = complete().context(before, row == 1)
  if not kind then
    done(nil, nil)
    return
  end
  local answered = false
  local now, asked = complete().items(kind, query, function(items)
    answered = true
    done(items, start, true)
  end)
  if not answered then
    done(now, start, not asked or #now > 0)
  end
end
M.request = request

-- cmp source (nvim-cmp).
local cmp_source = {}

function cmp_source:is_available()
  return vim.bo.filetype == 'coder-input'
end

function cmp_source:get_trigger_characters()
  return { '@', '#', '/' }
end

-- The word before the cursor, whatever it starts with: a model name after
-- /model has no sigil. request() decides whether it is one to complete.
function cmp_source:get_keyword_pattern()
  return [[\S\+]]
end

function cmp_source:complete(params, callback)
  local kinds = require('cmp').lsp.CompletionItemKind
  local sent = false
  request(params.context.cursor_before_line, params.context.cursor.row, function(items, _, final)
    -- nvim-cmp takes one answer per request: what is ready, or else the
    -- host's answer.
    if sent or (items and not final) then
      return
    end
    sent = true
    if items == nil then
      callback()
    else
      callback({ items = lsp_items(items, kinds), isIncomplete = true })
    end
  end)
end

-- input_config is nvim-cmp's setup for the input buffer: the user's own
-- (cmp.setup.filetype('coder-input', …)) with the coder source added in
-- front, else the coder and buffer sources.
local function input_config()
  local ok, config = pcall(require, 'cmp.config')
  local mine = ok and type(config) == 'table' and type(config.filetypes) == 'table' and config.filetypes['coder-input']
  if type(mine) ~= 'table' then
    return { sources = { { name = 'coder' }, { name = 'buffer' } } }
  end
  local c = vim.deepcopy(mine)
  c.revision = nil
  c.sources = type(c.sources) == 'table' and c.sources or { { name = 'buffer' } }
  for _, src in ipairs(c.sources) do
    if type(src) == 'table' and src.name == 'coder' then
      return c
    end
  end
  table.insert(c.sources, 1, { name = 'coder' })
  return c
end

-- register adds the sources of the completion plugins that are installed
-- and not yet given one. It runs when the input buffer is made and again
-- on each InsertEnter there: a plugin manager may load a plugin only then
-- (on InsertEnter, or a later :packadd).
function M.register()
  if not registered.cmp then
    local ok, cmp = pcall(require, 'cmp')
    if ok and type(cmp) == 'table' and cmp.register_source then
      registered.cmp = true
      cmp.register_source('coder', setmetatable({}, { __index = cmp_source }))
      if cmp.setup and cmp.setup.filetype then
        pcall(cmp.setup.filetype, 'coder-input', input_config())
      end
    end
  end
  if not registered.blink then
    local ok, blink = pcall(require, 'blink.cmp')
    if ok and type(blink) == 'table' and blink.add_source_provider then
      registered.blink = true
      pcall(blink.add_source_provider, 'coder', { name = 'coder', module = 'coder.blink' })
      if blink.add_filetype_source then
        pcall(blink.add_filetype_source, 'coder-input', 'coder')
      end
    end
  end
end

M.lsp_items = lsp_items

return M
