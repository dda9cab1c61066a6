-- Comments on hunks under review (the approval float's and the inline
-- edit's review, and :Coder review's): `gc` asks for a comment on the hunk
-- under the cursor, which the host keeps (:help coder-review-comments);
-- each shows as virtual text on its hunk and as an entry of the quickfix
-- list "coder review comments"; `gS` (or :Coder review send) sends them all
-- to the agent as one message. What a comment holds and when it goes are
-- the host's; this module only asks and shows.
local M = {}

local api = vim.api
local ns = api.nvim_create_namespace('coder_review_comments')
local title = 'coder review comments'

-- shown are the comments drawn: {buf, row, text, filename, lnum}.
local shown = {}

local function notify(msg, level)
  vim.notify('coder: ' .. msg, level or vim.log.levels.INFO, { title = 'coder' })
end

-- comments_nr is the number of the comments' quickfix list in the stack,
-- or nil.
local function comments_nr()
  for nr = vim.fn.getqflist({ nr = '$' }).nr, 1, -1 do
    if vim.fn.getqflist({ nr = nr, title = 0 }).title == title then
      return nr
    end
  end
end

-- refresh_qf puts the comments into a quickfix list of their own
-- (:cnewer / :colder reach it) without changing which list is current:
-- :Coder review's list stays the one its keys work on.
local function refresh_qf()
  local items = {}
  for _, c in ipairs(shown) do
    table.insert(items, { filename = c.filename, lnum = c.lnum, text = '💬 ' .. c.text })
  end
  local nr = comments_nr()
  if nr then
    vim.fn.setqflist({}, 'r', { nr = nr, title = title, items = items })
    return
  end
  if #items == 0 then
    return
  end
  local cur = vim.fn.getqflist({ nr = 0 }).nr
  -- The new list goes right after the current one; back to that.
  vim.fn.setqflist({}, ' ', { title = title, items = items })
  if cur > 0 then
    pcall(vim.cmd, 'silent colder')
  end
end

local function draw(c)
  if c.buf and api.nvim_buf_is_valid(c.buf) then
    local row = math.max(0, math.min(c.row, api.nvim_buf_line_count(c.buf) - 1))
    pcall(api.nvim_buf_set_extmark, c.buf, ns, row, 0, {
      virt_text = { { '💬 ' .. c.text, 'CoderReviewComment' } },
      virt_text_pos = 'eol',
    })
  end
end

-- add asks for a comment on hunk h — {path, abs, buf, start, stop, diff,
-- kept, review} — and hands it to the host.
function M.add(h)
  if not h then
    return notify('no hunk under the cursor', vim.log.levels.WARN)
  end
  vim.ui.input({ prompt = ('Comment on %s:%d (gS sends all): '):format(h.path, h.start) }, function(text)
    if text == nil or vim.trim(text) == '' then
      return
    end
    vim.schedule(function()
      local n, err = require('coder.host').request('coder_review_comment', {
        path = h.path,
        start = h.start,
        ['end'] = h.stop or 0,
        hunk = h.diff or '',
        text = text,
        kept = h.kept,
        review = h.review or '',
      })
      if not n then
        return notify(tostring(err), vim.log.levels.ERROR)
      end
      local buf = h.buf
      if not buf and h.abs and vim.fn.bufexists(h.abs) == 1 then
        buf = vim.fn.bufnr(h.abs)
      end
      local c = { buf = buf, row = h.start - 1, text = vim.trim(text), filename = h.abs or h.path, lnum = h.start }
      table.insert(shown, c)
      draw(c)
      refresh_qf()
      notify(('%d review comment%s waiting: %s sends them'):format(n, n == 1 and '' or 's', require('coder.config').current.keys.review_send))
    end)
  end)
end

-- send sends every waiting comment as one message.
function M.send()
  require('coder.host').notify('coder_review_send')
end

-- sent clears what showed the comments: the host took them.
function M.sent()
  for _, c in ipairs(shown) do
    if c.buf and api.nvim_buf_is_valid(c.buf) then
      api.nvim_buf_clear_namespace(c.buf, ns, 0, -1)
    end
  end
  shown = {}
  refresh_qf()
end

-- count is how many comments show.
function M.count()
  return #shown
end

-- diff is a hunk as a unified diff: its header, then old and new lines.
function M.diff(path, old_start, new_start, old, new)
  local out = { ('--- a/%s'):format(path), ('+++ b/%s'):format(path), ('@@ -%d,%d +%d,%d @@'):format(old_start, #old, new_start, #new) }
  for _, l in ipairs(old) do
    table.insert(out, '-' .. l)
  end
  for _, l in ipairs(new) do
    table.insert(out, '+' .. l)
  end
  return table.concat(out, '\n')
end

return M
