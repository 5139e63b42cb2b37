-- Headless run: open AIRSPACE_FILE with the tested configuration, wait (bounded) for Airspace's
-- diagnostics, hover the first one, run its "open" and "copy a summary" code actions (Neovim 0.7
-- cannot open a document for the server: both must arrive as plain messages, not as a prompt),
-- ask airspace/scan, write everything to AIRSPACE_OUT, quit. AIRSPACE_SCENARIO picks another run.
local here = vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':p:h')
package.path = here .. '/?.lua;' .. package.path
local timeout = tonumber(os.getenv('AIRSPACE_TIMEOUT_MS') or '20000')
local out = { diagnostics = {}, nvim = vim.version() }
local shown = {}
vim.lsp.handlers['window/showMessage'] = function(_, result) table.insert(shown, result.message) end

local notified = {}
vim.notify = function(msg, level) table.insert(notified, { message = msg, level = level }) end
-- AIRSPACE_SCENARIO: `bad-base` (a base the repository lacks: the error must be shown), `killed`
-- (the server is killed once diagnostics arrive: the user is told and it restarts),
-- `two-worktrees` (AIRSPACE_FILE2, of another worktree, is opened too: one server for both), or the default.
local scenario = os.getenv('AIRSPACE_SCENARIO') or ''

local function airspace_client()
  for _, c in ipairs(vim.lsp.get_active_clients()) do
    if c.name == 'airspace' then return c end
  end
end

local ok, err = pcall(function()
  local settings = scenario == 'bad-base' and { base = 'no-such-base' } or nil
  require('airspace').setup({ cmd = vim.fn.json_decode(os.getenv('AIRSPACE_LSP_CMD')), settings = settings })
  vim.cmd('edit ' .. vim.fn.fnameescape(os.getenv('AIRSPACE_FILE')))
  local buf = vim.api.nvim_get_current_buf()
  if scenario == 'bad-base' then
    out.errorShown = vim.wait(timeout, function() return #shown > 0 end, 50)
    out.shown = shown
    return
  end
  out.received = vim.wait(timeout, function() return #vim.diagnostic.get(buf) > 0 end, 50)
  if scenario == 'two-worktrees' then
    -- A file of another worktree of the same repository, opened in the same editor.
    vim.cmd('edit ' .. vim.fn.fnameescape(os.getenv('AIRSPACE_FILE2')))
    local second = vim.api.nvim_get_current_buf()
    out.receivedSecond = vim.wait(timeout, function() return #vim.diagnostic.get(second) > 0 end, 50)
    out.perFile = {}
    for _, b in ipairs({ buf, second }) do
      local list = {}
      for _, d in ipairs(vim.diagnostic.get(b)) do table.insert(list, { lnum = d.lnum, message = d.message }) end
      table.insert(out.perFile, { file = vim.api.nvim_buf_get_name(b), diagnostics = list })
    end
    out.servers = {}
    for _, c in ipairs(vim.lsp.get_active_clients()) do
      if c.name == 'airspace' then
        local names = {}
        for _, f in ipairs(c.workspace_folders or {}) do table.insert(names, f.name) end
        table.insert(out.servers, { pid = c.rpc.pid, folders = names })
      end
    end
    return
  end
  if scenario == 'killed' and out.received then
    local first = airspace_client()
    vim.loop.kill(first.rpc.pid, 15)
    out.cleared = vim.wait(timeout, function() return #vim.diagnostic.get(buf) == 0 end, 50)
    out.restarted = vim.wait(timeout, function()
      local c = airspace_client()
      return c ~= nil and c.id ~= first.id and #vim.diagnostic.get(buf) > 0
    end, 50)
    out.notified = notified
    return
  end
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
    local at = { line = first.lnum, character = 0 }
    local actions = vim.lsp.buf_request_sync(buf, 'textDocument/codeAction', { textDocument = params.textDocument, range = { start = at, ['end'] = at }, context = { diagnostics = {} } }, 10000) or {}
    out.actions = {}
    for _, r in pairs(actions) do
      for _, a in ipairs(r.result or {}) do
        table.insert(out.actions, a.title)
        if a.title:match('^Open ') or a.title:match('^Copy a summary') then
          vim.lsp.buf_request_sync(buf, 'workspace/executeCommand', a.command, 10000)
        end
      end
    end
    vim.wait(5000, function() return #shown >= 2 end, 50)
    out.shown = shown
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
