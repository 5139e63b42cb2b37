/** How long-running commands (watch, view, publish --watch) wait to be stopped. */

/** Resolves on the first SIGINT or SIGTERM (Ctrl-C, or a supervisor stopping us), then stops listening. */
export function untilSignal(): Promise<void> {
  return new Promise<void>((resolve) => {
    const stop = (): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}
