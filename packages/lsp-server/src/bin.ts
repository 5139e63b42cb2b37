#!/usr/bin/env node
/**
 * `airspace-lsp --stdio` (also `airspace lsp --stdio`). Stdout carries protocol messages only:
 * console output goes to stderr, and no error ends the process.
 */
import { runLanguageServer } from './index.js';

runLanguageServer();
