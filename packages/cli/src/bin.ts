#!/usr/bin/env node
import { exitQuietlyOnClosedPipe, processIo } from './io.js';

exitQuietlyOnClosedPipe();

const argv = process.argv.slice(2);
if (argv[0] === 'check' || argv[0] === 'engine' || argv[0] === 'scan') {
  // A pre-edit check (and a scan) asks the resident engine: load that command alone, not every
  // command's dependencies (the scanner is loaded only if it falls back to scanning in-process).
  const [{ buildProgram, runProgram }, commands] = await Promise.all([
    import('./runner.js'),
    argv[0] === 'check'
      ? import('./commands/check.js').then((m) => m.checkCommand)
      : argv[0] === 'scan'
        ? import('./commands/scan.js').then((m) => m.scanCommand)
        : import('./commands/engine.js').then((m) => m.engineCommand),
  ]);
  const io = processIo();
  await runProgram(buildProgram(io, [commands]), argv, io);
} else {
  const { run } = await import('./program.js');
  await run(argv);
}
