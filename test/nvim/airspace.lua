-- Airspace for Neovim 0.7+ (the configuration docs/editors.md shows; tested by nvim-lsp.test.ts).
-- One client per repository: each git worktree you open a file of is a workspace folder of it, and
-- the worktree a file belongs to is "self" for that file.
local M = {}

local clients = {}   -- repository (git common dir) -> client id
local folders = {}   -- repository -> list of its worktrees opened, in order
local buffers = {}   -- repository -> { [bufnr] = true }, attached to its client
local restarts = {}  -- repository -> times of automatic restarts
local leaving = false

-- The worktree of a file and its repository (the git common directory all its worktrees share).
local function locate(path)
  local dir = vim.fn.fnamemodify(path, ':p:h')
  local out = vim.fn.systemlist({ 'git', '-C', dir, 'rev-parse', '--show-toplevel', '--git-common-dir' })
  if vim.v.shell_error ~= 0 or not out[1] or out[1] == '' or not out[2] then return nil end
  local common = out[2]
  if common:sub(1, 1) ~= '/' then common = dir .. '/' .. common end
  return out[1], vim.fn.fnamemodify(common, ':p')
end

local function folder(root) return { uri = vim.uri_from_fname(root), name = root } end

local function has_folder(repo, root)
  for _, f in ipairs(folders[repo]) do
    if f == root then return true end
  end
  return false
end

-- Starts the repository's server with every worktree opened so far and attaches its buffers. A
-- server that stops on its own (killed, crashed) must not look like "all clear": say so, and
-- start it again (at most 3 times a minute).
local function start(repo, opts)
  local id
  local workspace = {}
  for _, root in ipairs(folders[repo]) do table.insert(workspace, folder(root)) end
  id = vim.lsp.start_client({
    name = 'airspace',
    cmd = opts.cmd or { 'airspace', 'lsp', '--stdio' },
    root_dir = folders[repo][1],
    workspace_folders = workspace,
    -- Neovim 0.7 sends neither on start: initializationOptions carry the settings, and
    -- the server also asks workspace/configuration, which Neovim answers from `settings`.
    init_options = { settings = opts.settings or {} },
    settings = { airspace = opts.settings or {} },
    -- Worktrees opened while the server was starting are added once it is initialized.
    on_init = function(client)
      local added = {}
      for i = #workspace + 1, #folders[repo] do table.insert(added, folder(folders[repo][i])) end
      if #added == 0 then return end
      vim.list_extend(client.workspace_folders, added)
      client.notify('workspace/didChangeWorkspaceFolders', { event = { added = added, removed = {} } })
    end,
    on_exit = function(code, signal)
      vim.schedule(function()
        if leaving or clients[repo] ~= id then return end
        clients[repo] = nil
        if code == 0 and signal == 0 then return end
        local now, recent = os.time(), {}
        for _, t in ipairs(restarts[repo] or {}) do
          if now - t < 60 then table.insert(recent, t) end
        end
        restarts[repo] = recent
        local why = string.format('Airspace stopped (exit %d, signal %d): its warnings for %s are gone', code, signal,
          table.concat(folders[repo], ', '))
        if #recent >= 3 then
          vim.notify(why .. '; not restarting (3 restarts this minute).', vim.log.levels.ERROR)
          return
        end
        table.insert(recent, now)
        vim.notify(why .. '; restarting it.', vim.log.levels.WARN)
        start(repo, opts)
      end)
    end,
  })
  clients[repo] = id
  if not id then return end
  for buf in pairs(buffers[repo] or {}) do
    if vim.api.nvim_buf_is_loaded(buf) then vim.lsp.buf_attach_client(buf, id) end
  end
end

function M.setup(opts)
  opts = opts or {}
  vim.api.nvim_create_autocmd('VimLeavePre', { callback = function() leaving = true end })
  vim.api.nvim_create_autocmd('BufReadPost', {
    pattern = opts.pattern or { '*.ts', '*.tsx', '*.js', '*.jsx', '*.mjs', '*.cjs', '*.py' },
    callback = function(args)
      local root, repo = locate(vim.api.nvim_buf_get_name(args.buf))
      if not root then return end
      folders[repo] = folders[repo] or {}
      buffers[repo] = buffers[repo] or {}
      buffers[repo][args.buf] = true
      local known = has_folder(repo, root)
      if not known then table.insert(folders[repo], root) end
      local client = clients[repo] and vim.lsp.get_client_by_id(clients[repo])
      if not client then
        start(repo, opts)
        return
      end
      -- Another worktree of a repository already served: the same server takes it as a folder.
      if not known and client.initialized then
        table.insert(client.workspace_folders, folder(root))
        client.notify('workspace/didChangeWorkspaceFolders', { event = { added = { folder(root) }, removed = {} } })
      end
      vim.lsp.buf_attach_client(args.buf, client.id)
    end,
  })
end

return M
