export * from './facts.js';
export { extractFacts, parseTree, readsTransferBuffer, sourceText, type ExtractOptions } from './extract/extract.js';
export {
  loadParser,
  parserChoice,
  parserBackendOf,
  currentBackend,
  wasmGrammarPath,
  ParserUnavailableError,
  PARSER_ENV,
  type ParserBackend,
  type ParserChoice,
  type ParserKind,
  type ParserStatus,
} from './extract/parser-backend.js';
export { scanImportFacts } from './extract/import-scanner.js';
export { isImportsOnly } from './cache/pack.js';
export { factsVersion, queryText, QUERY_KINDS, LANGUAGES, type QueryKind } from './extract/queries.js';
export {
  parseAll,
  createParsePool,
  defaultWorkers,
  prestartParseWorkers,
  SPARE_WORKER_MS,
  type ParseJob,
  type ParseOptions,
  type ParseOutcome,
  type ParsePool,
} from './extract/pool.js';
export { createFactsStore, type FactsStore, type FactsStoreOptions, type CacheStats } from './cache/cache.js';
export {
  createResolver,
  isConfigFile,
  splitPackage,
  type Resolver,
  type ResolverInput,
  type Resolution,
  type ResolvedVia,
} from './resolve/resolver.js';
export { parseJsonc } from './resolve/jsonc.js';
export * from './snapshot.js';
export * from './indexing/build.js';
export * from './indexing/view.js';
export * from './graph-json.js';
export * from './symbols/index.js';
export {
  buildSymbolGraph,
  buildCallGraph,
  createNameResolver,
  type NameResolver,
  type Binding,
  type SymbolGraph,
  type CallGraph,
  type SymbolNodeAttributes,
  type UseEdgeAttributes,
} from './graph/symbols.js';
