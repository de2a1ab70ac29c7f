// Why a directory cannot be written, in words a user can act on. LevelDB reports a read-only data
// directory as a failure to take its LOCK (which reads like another process holding it), and a
// recursive mkdir on a read-only file system fails with ENOENT: both hide the real cause. A probe
// file in the directory (or in its nearest existing parent, when it is to be created) tells.
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** Why nothing can be written in `dir` (or `dir` cannot be created), or undefined when it can. */
export function whyNotWritable(dir: string): string | undefined {
  let at = dir;
  while (!existsSync(at) && dirname(at) !== at) at = dirname(at);
  const where = at === dir ? dir : `${at} (where ${dir} would be made)`;
  const probe = join(at, `.crawlstream-write-probe-${process.pid}`);
  try {
    writeFileSync(probe, '');
    rmSync(probe, { force: true });
    return undefined;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EROFS') return `${where} is on a read-only file system`;
    if (code === 'EACCES' || code === 'EPERM') return `${where} is not writable by this user (${code})`;
    if (code === 'ENOSPC' || code === 'EDQUOT') return `the disk holding ${where} is full (${code})`;
    if (code === 'ENOTDIR') return `${at} is not a directory`;
    return `${where} cannot be written: ${(err as Error).message}`;
  }
}
