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
