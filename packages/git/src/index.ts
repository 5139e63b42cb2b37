export * from './exec.js';
export * from './problems.js';
export * from './repo-path.js';
export * from './worktree-file.js';
export * from './blob.js';
export * from './diff.js';
export * from './mapping.js';
export * from './repository.js';
export * from './sources.js';
export * from './scratch.js';
export * from './state-tree.js';
export * from './path-bytes.js';
export * from './working-set.js';
export * from './service.js';
export * from './load-agents.js';
export * from './tree-model.js';
export * from './patch-agent.js';
export * from './blob-reader.js';
export * from './team/store.js';
export * from './team/observation.js';
export * from './team/publish.js';
export * from './team/fetch.js';
export * from './history/mine.js';
export { HistoryGraph, HistoryView, STORED_FILES_LIMIT } from './history/graph.js';
export { CommitHistory, coChangeService, DEFAULT_CO_CHANGE_VIEW, type CommitHistoryOptions } from './history/history.js';
export { HISTORY_CACHE_DIR } from './history/cache.js';
export * from './changes.js';
export {
  PastConflictHistory,
  pastConflictsService,
  CONFLICTS_CACHE_DIR,
  type MergeRecord,
  type PastConflictHistoryOptions,
} from './history/conflicts.js';
export * from './map-limit.js';
export * from './worktree-status.js';
