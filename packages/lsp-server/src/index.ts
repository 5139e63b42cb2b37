export {
  startServer,
  ScanRequestMethod,
  EngineRequestMethod,
  AdvisoriesNotificationMethod,
  type AirspaceSettings,
  type ServerOptions,
  type AdvisoriesParams,
} from './server.js';
export { SOURCE, type DiagnosticData } from './present.js';
export { Commands, type PairArgs } from './commands.js';
export { findingsFor, pairKey, type Finding } from './findings.js';
export type {
  LspScanner,
  CreateLspScanner,
  LspScannerOptions,
  ScanInput,
  Overrides,
  Intents,
  IntentSpec,
  ScannerMode,
} from './lsp-scanner.js';
export { createEngineScanner, createDefaultScanner } from './engine-scanner.js';
export { runLanguageServer } from './run.js';
