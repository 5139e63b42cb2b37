/**
 * The part of a repository a peer comparison measures: `--subdir src` or several directories,
 * comma-separated (`--subdir src,test`), so that a repository whose code is split across
 * top-level directories can be measured as one tree of its real size.
 */
export function subdirList(subdir: string): string[] {
  return subdir
    .split(',')
    .map((d) => d.trim().replace(/\/+$/, ''))
    .filter(Boolean);
}

/** Whether a repository-relative path lies in one of the directories of `subdir`. */
export function inSubdirs(path: string, subdir: string): boolean {
  return subdirList(subdir).some((d) => path.startsWith(`${d}/`));
}
