/** Files a user names to the config package (a config, a calibration file), read by one rule. */
import { readRegularFileSync } from '@airspace/git/worktree-file';

/**
 * A file the user names (a config, a calibration file), by git's one rule for files: a regular
 * file, never a FIFO or a device, read bounded. A link named as the file is followed.
 */
export function readUserFile(path: string): string {
  const read = readRegularFileSync(path, { followLinks: true });
  if ('skip' in read) throw new Error(`${path} cannot be read: ${read.detail}`);
  return read.content.toString('utf8');
}
