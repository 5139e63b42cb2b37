/**
 * Exit codes and the one place where an error becomes a message. Every failure the user can
 * cause (not a repository, unknown base, unreadable config, bad flag) ends with a sentence on
 * stderr and exit 1, never a stack trace.
 */
export const ExitCode = {
  OK: 0,
  ERROR: 1,
  /** `check` found traffic/resolution; `scan --fail-on` matched. */
  ADVISORY: 2,
} as const;

export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = ExitCode.ERROR,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

/** A message for any thrown value: ours and the scanner's are already sentences. */
export function describeError(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string' && process.env.AIRSPACE_DEBUG) return `${error.message} [${code}]\n${error.stack ?? ''}`;
    return error.message;
  }
  return String(error);
}
