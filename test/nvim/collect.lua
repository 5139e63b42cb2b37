-- Headless run: open AIRSPACE_FILE with the tested configuration, wait (bounded) for Airspace's
-- diagnostics, hover the first one, ask airspace/scan, write everything to AIRSPACE_OUT, quit.
local here = vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h')
package.path = here .. '/?.lua;' .. package.path
local timeout = tonumber(os.getenv('AIRSPACE_TIMEOUT_MS') or '20000')
local out = { diagnostics = {}, nvim = vim.version() }

local ok, err = pcall(function()
  require('airspace').setup({ cmd = vim.fn.json_decode(os.getenv('AIRSPACE_LSP_CMD')) })
  vim.cmd('edit ' .. vim.fn.fnameescape(os.getenv('AIRSPACE_FILE')))
  local buf = vim.api.nvim_get_current_buf()
  out.received = vim.wait(timeout, function() return #vim.diagnostic.get(buf) > 0 end, 50)
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    table.insert(out.diagnostics, { lnum = d.lnum, message = d.message, severity = d.severity, source = d.source, code = d.code })
  end
  if out.received then
    local first = vim.diagnostic.get(buf)[1]
    local params = { textDocument = { uri = vim.uri_from_bufnr(buf) }, position = { line = first.lnum, character = 0 } }
    local hover = vim.lsp.buf_request_sync(buf, 'textDocument/hover', params, 10000) or {}
    for _, r in pairs(hover) do
      if r.result and r.result.contents then out.hover = r.result.contents.value end
    end
    local scan = vim.lsp.buf_request_sync(buf, 'airspace/scan', {}, 10000) or {}
    for _, r in pairs(scan) do
      if r.result then out.advisories = #r.result.advisories end
    end
  end
end)
if not ok then out.error = tostring(err) end
local file = io.open(os.getenv('AIRSPACE_OUT'), 'w')
file:write(vim.fn.json_encode(out))
file:close()
vim.cmd('qa!')
