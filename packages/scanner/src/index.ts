export {
  createScanner,
  scanRepository,
  DEFER_INDEX_FILES,
  FIRST_ANSWER_WAIT_MS,
  WARMING_UP,
  type ScannedState,
  type Overrides,
  type Probe,
  type ScanProgress,
  type ScanExtra,
  type Scanner,
  type ScannerOptions,
} from './scanner.js';
export { BUILTIN_CHANNELS } from './channels.js';
// The resident engine runs the built-in typecheck channel's checks in its background.
export { checkInBackground, type BackgroundChecks } from '@airspace/channel-typecheck';
export {
  builtinChannels,
  configLocation,
  configuredBase,
  describeChannels,
  loadScanSetup,
  scanOptionsOf,
  scanRecency,
  ScannerError,
  watchConfigFiles,
  type ScanSetup,
  type ScanSetupOptions,
} from './scan-setup.js';
export {
  applyIntent,
  applyIntentMap,
  mergeIntent,
  hasIntentSymbols,
  normalizeIntent,
  resolveIntentSymbols,
  type IntentDefinition,
  type IntentEntry,
  type IntentMap,
  type IntentSpec,
} from './intent.js';
export {
  indexWorktree,
  createAnalysisState,
  ANALYSIS_SERVICES,
  PARSER_UNAVAILABLE,
  PARSER_WASM,
  type AnalysisState,
  type AnalysisServices,
} from './analysis.js';
export {
  conflictGroups,
  mergeOrder,
  planOrder,
  searchOrder,
  type MergeOrder,
  type MergeStepResult,
  type OrderConflict,
  type OrderMerger,
  type OrderStep,
  type PlanOptions,
  type SearchOptions,
} from './order.js';
