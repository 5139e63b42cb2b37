-- Airspace for Neovim 0.7+ (the configuration docs/editors.md shows; tested by nvim-lsp.test.ts).
-- One client per git worktree: the worktree you edit in is "self".
local M = {}

local clients = {}

local function worktree_of(path)
  local dir = vim.fn.fnamemodify(path, ':p:h')
  local out = vim.fn.systemlist({ 'git', '-C', dir, 'rev-parse', '--show-toplevel' })
  if vim.v.shell_error ~= 0 or not out[1] or out[1] == '' then return nil end
  return out[1]
end

function M.setup(opts)
  opts = opts or {}
  local cmd = opts.cmd or { 'airspace', 'lsp', '--stdio' }
  vim.api.nvim_create_autocmd('BufReadPost', {
    pattern = opts.pattern or { '*.ts', '*.tsx', '*.js', '*.jsx', '*.mjs', '*.cjs', '*.py' },
    callback = function(args)
      local root = worktree_of(vim.api.nvim_buf_get_name(args.buf))
      if not root then return end
      local id = clients[root]
      if not id or vim.lsp.get_client_by_id(id) == nil then
        id = vim.lsp.start_client({
          name = 'airspace',
          cmd = cmd,
          root_dir = root,
          workspace_folders = { { uri = vim.uri_from_fname(root), name = root } },
          -- Neovim 0.7 sends neither on start: initializationOptions carry the settings, and
          -- the server also asks workspace/configuration, which Neovim answers from `settings`.
          init_options = { settings = opts.settings or {} },
          settings = { airspace = opts.settings or {} },
        })
        clients[root] = id
      end
      if id then vim.lsp.buf_attach_client(args.buf, id) end
    end,
  })
end

return M
