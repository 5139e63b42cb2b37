/**
 * A request the user got wrong (a directory for a file, an unknown agent): the same sentence
 * and exit 1 whether the engine or an in-process scan answers. Anything else the engine throws
 * is its own failure, and the front end falls back to scanning in-process.
 */
export class InputError extends Error {
  readonly kind = 'INPUT' as const;
  constructor(message: string) {
    super(message);
    this.name = 'InputError';
  }
}
