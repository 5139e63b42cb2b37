-- Airspace for Neovim 0.7+ (the configuration docs/editors.md shows; tested by nvim-lsp.test.ts).
-- One client per git worktree: the worktree you edit in is "self".
local M = {}

local clients = {}   -- worktree -> client id
local buffers = {}   -- worktree -> { [bufnr] = true }, attached to its client
local restarts = {}  -- worktree -> times of automatic restarts
local leaving = false

local function worktree_of(path)
  local dir = vim.fn.fnamemodify(path, ':p:h')
  local out = vim.fn.systemlist({ 'git', '-C', dir, 'rev-parse', '--show-toplevel' })
  if vim.v.shell_error ~= 0 or not out[1] or out[1] == '' then return nil end
  return out[1]
end

-- Starts the worktree's server and attaches its buffers. A server that stops on its own (killed,
-- crashed) must not look like "all clear": say so, and start it again (at most 3 times a minute).
local function start(root, opts)
  local id
  id = vim.lsp.start_client({
    name = 'airspace',
    cmd = opts.cmd or { 'airspace', 'lsp', '--stdio' },
    root_dir = root,
    workspace_folders = { { uri = vim.uri_from_fname(root), name = root } },
    -- Neovim 0.7 sends neither on start: initializationOptions carry the settings, and
    -- the server also asks workspace/configuration, which Neovim answers from `settings`.
    init_options = { settings = opts.settings or {} },
    settings = { airspace = opts.settings or {} },
    on_exit = function(code, signal)
      vim.schedule(function()
        if leaving or clients[root] ~= id then return end
        clients[root] = nil
        if code == 0 and signal == 0 then return end
        local now, recent = os.time(), {}
        for _, t in ipairs(restarts[root] or {}) do
          if now - t < 60 then table.insert(recent, t) end
        end
        restarts[root] = recent
        local why = string.format('Airspace stopped (exit %d, signal %d): its warnings for %s are gone', code, signal, root)
        if #recent >= 3 then
          vim.notify(why .. '; not restarting (3 restarts this minute).', vim.log.levels.ERROR)
          return
        end
        table.insert(recent, now)
        vim.notify(why .. '; restarting it.', vim.log.levels.WARN)
        start(root, opts)
      end)
    end,
  })
  clients[root] = id
  if not id then return end
  for buf in pairs(buffers[root] or {}) do
    if vim.api.nvim_buf_is_loaded(buf) then vim.lsp.buf_attach_client(buf, id) end
  end
end

function M.setup(opts)
  opts = opts or {}
  vim.api.nvim_create_autocmd('VimLeavePre', { callback = function() leaving = true end })
  vim.api.nvim_create_autocmd('BufReadPost', {
    pattern = opts.pattern or { '*.ts', '*.tsx', '*.js', '*.jsx', '*.mjs', '*.cjs', '*.py' },
    callback = function(args)
      local root = worktree_of(vim.api.nvim_buf_get_name(args.buf))
      if not root then return end
      buffers[root] = buffers[root] or {}
      buffers[root][args.buf] = true
      local id = clients[root]
      if id and vim.lsp.get_client_by_id(id) ~= nil then
        vim.lsp.buf_attach_client(args.buf, id)
      else
        start(root, opts)
      end
    end,
  })
end

return M
