// The built server over stdio, with the stand-in engine of fake-scanner.mjs.
import { runLanguageServer } from '../../dist/index.js';
import { createScanner } from './fake-scanner.mjs';

runLanguageServer({ createScanner: (options) => createScanner(options), settings: { debounceMs: 50 } });
