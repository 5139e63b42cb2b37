/**
 * The git launcher's child process (see launcher.ts): runs the git commands its parent sends and
 * answers with their output. Small and long-lived, so that starting a process costs what it
 * costs in a small process, not in a parent holding a gigabyte of index.
 */
import { runProcess, type ProcessRequest } from './run-process.js';

process.on('disconnect', () => process.exit(0));
process.on('message', (r: ProcessRequest & { readonly id: number }) => {
  void runProcess('git', r).then((result) => process.send!({ id: r.id, ...result }));
});
