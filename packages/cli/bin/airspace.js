#!/usr/bin/env node
// Committed (not built) so that `npm ci` can link the `airspace` binary before the first build.
import '../dist/bin.js';
