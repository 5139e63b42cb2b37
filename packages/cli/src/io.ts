/**
 * The process edges a command touches, passed in so that commands can run in-process in tests.
 */
export interface Io {
  readonly stdout: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  readonly stderr: NodeJS.WriteStream;
  readonly env: NodeJS.ProcessEnv;
  readonly cwd: string;
  /** Records the exit code; the highest one set wins. */
  exitCode(code: number): void;
}

export function processIo(): Io {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    cwd: process.cwd(),
    exitCode(code) {
      process.exitCode = Math.max(Number(process.exitCode ?? 0), code);
    },
  };
}

/**
 * A reader that goes away (`airspace scan | head`) ends the run quietly, as it ends `git log |
 * head`: a closed pipe is not an error of ours, and there is nobody left to tell. The exit code
 * is the one recorded so far. Any other stream error is one sentence and exit 1.
 */
export function exitQuietlyOnClosedPipe(
  streams: readonly NodeJS.WriteStream[] = [process.stdout, process.stderr],
  exit: (code: number) => void = (code) => process.exit(code),
): void {
  for (const stream of streams) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EPIPE' || error.code === 'ERR_STREAM_DESTROYED') return exit(Number(process.exitCode ?? 0));
      try {
        process.stderr.write(`airspace: Cannot write the output: ${error.message}.\n`);
      } finally {
        exit(1);
      }
    });
  }
}
