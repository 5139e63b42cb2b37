-- Save-to-diagnostic latency as Neovim meets it (run by measure-editor.ts, headless): open
-- AIRSPACE_FILE with the documented setup (AIRSPACE_SETUP_DIR/airspace.lua), wait for Airspace's
-- first diagnostics, then AIRSPACE_SAVES times save another worktree's file AIRSPACE_SAVE_PATH
-- the way an editor does (write a temporary file next to it, rename it over the file), with the
-- contents of AIRSPACE_VARIANT_A and AIRSPACE_VARIANT_B in turn, each changing which of the
-- opened file's lines collide, and time from the save to the first change of the buffer's
-- diagnostics. Waits AIRSPACE_GAP_MS after each change (saves are seconds apart in practice).
-- Writes { first, latencies, states = { seen, settled }, error } to AIRSPACE_OUT as JSON, and quits.
local setup_dir = os.getenv('AIRSPACE_SETUP_DIR')
package.path = setup_dir .. '/?.lua;' .. package.path
local timeout = tonumber(os.getenv('AIRSPACE_TIMEOUT_MS') or '60000')
local saves = tonumber(os.getenv('AIRSPACE_SAVES') or '10')
local gap = tonumber(os.getenv('AIRSPACE_GAP_MS') or '700')
local out = { latencies = {}, states = {}, nvim = vim.version() }
vim.notify = function() end

local function slurp(path)
  local f = assert(io.open(path, 'rb'))
  local text = f:read('*a')
  f:close()
  return text
end

local function save(path, text)
  local tmp = path .. '.airspace-bench~'
  local f = assert(io.open(tmp, 'wb'))
  f:write(text)
  f:close()
  assert(os.rename(tmp, path))
end

local function state(buf)
  local parts = {}
  for _, d in ipairs(vim.diagnostic.get(buf)) do table.insert(parts, d.lnum .. ':' .. d.message) end
  table.sort(parts)
  return table.concat(parts, '\n')
end

local ok, err = pcall(function()
  require('airspace').setup({ cmd = vim.fn.json_decode(os.getenv('AIRSPACE_LSP_CMD')) })
  local started = vim.loop.hrtime()
  vim.cmd('edit ' .. vim.fn.fnameescape(os.getenv('AIRSPACE_FILE')))
  local buf = vim.api.nvim_get_current_buf()
  if not vim.wait(timeout, function() return #vim.diagnostic.get(buf) > 0 end, 20) then
    error('no diagnostics within ' .. timeout .. ' ms')
  end
  out.first = (vim.loop.hrtime() - started) / 1e6
  local target = os.getenv('AIRSPACE_SAVE_PATH')
  local variants = { slurp(os.getenv('AIRSPACE_VARIANT_A')), slurp(os.getenv('AIRSPACE_VARIANT_B')) }
  -- Diagnostics still settling after the first scan (acknowledgements read, a second scan) are
  -- not a save's answer: wait until they hold still for a moment.
  local last, since = state(buf), vim.loop.hrtime()
  vim.wait(timeout, function()
    local now = state(buf)
    if now ~= last then last, since = now, vim.loop.hrtime() end
    return (vim.loop.hrtime() - since) / 1e6 > 1500
  end, 20)
  for i = 1, saves do
    local before = state(buf)
    local t0 = vim.loop.hrtime()
    save(target, variants[(i - 1) % 2 + 1])
    local changed = vim.wait(timeout, function() return state(buf) ~= before end, 1)
    local ms = (vim.loop.hrtime() - t0) / 1e6
    if not changed then error('save ' .. i .. ': the diagnostics did not change within ' .. timeout .. ' ms') end
    table.insert(out.latencies, ms)
    local seen = state(buf)
    vim.wait(gap, function() return false end, 20)
    -- What the change showed must be what stays: a change followed by another is a flicker.
    table.insert(out.states, { seen = seen, settled = state(buf) })
  end
end)
if not ok then out.error = tostring(err) end
local file = io.open(os.getenv('AIRSPACE_OUT'), 'w')
file:write(vim.fn.json_encode(out))
file:close()
vim.cmd('qa!')
