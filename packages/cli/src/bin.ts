#!/usr/bin/env node
import { exitQuietlyOnClosedPipe } from './io.js';
import { run } from './program.js';

exitQuietlyOnClosedPipe();

await run(process.argv.slice(2));
