export {
  EngineCore,
  checkInProcess,
  scanInProcess,
  scanRequestOptions,
  repositoryPath,
  type AgentRef,
  type Advisory,
  type AdvisoriesResult,
  type AcknowledgeRequest,
  type AcknowledgeResult,
  type DeclareIntentRequest,
  type DeclareIntentResult,
  type EditorScanRequest,
  type EngineCoreOptions,
  type ScanRequest,
} from './questions.js';
export { advisoriesText, checkText, declaredText, nextAction, overallAction, type NextAction } from './advice.js';
export {
  answerCheck,
  conflictsOf,
  otherSideHunks,
  parseLines,
  parseUnifiedHunks,
  prepareCheck,
  runCheck,
  worktreeOf,
  type CheckConflict,
  type CheckRequest,
  type CheckResult,
  type CheckScan,
  type DiffHunk,
  type PreparedCheck,
} from './check.js';
export { InputError } from './errors.js';
export { intentMap, readIntents, writeIntent, type DeclaredIntent } from './intents.js';
export { parseStatusV2, repositoryStamp, stampDelta, type RepositoryStamp, type StampDelta } from './freshness.js';
export { runEngineServer, acquireLock, type EngineServerOptions } from './server.js';
export * from './client.js';
