// Types of the stand-in engine (fake-scanner.mjs) for the TypeScript tests.
import type { CreateLspScanner } from '../../src/scanner.js';

export declare const createScanner: CreateLspScanner;
