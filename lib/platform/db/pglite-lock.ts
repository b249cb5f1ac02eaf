import fs from 'node:fs';

/**
 * One process per embedded database. PGlite is a single-process engine: two processes writing
 * the same data directory corrupt it (and the second one's requests abort). So opening a data
 * directory takes a lock file beside it, `<dir>.lock`, created exclusively and holding the
 * owner's pid and command; a lock whose process is gone (a crash, a kill -9) is taken over.
 */

export class DataDirInUse extends Error {
  override readonly name = 'DataDirInUse';
}

interface Holder {
  pid: number;
  command: string;
  since: string;
}

function holderOf(file: string): Holder | undefined {
  try {
    const value = JSON.parse(fs.readFileSync(file, 'utf8')) as Partial<Holder>;
    return typeof value.pid === 'number' ? { pid: value.pid, command: String(value.command ?? ''), since: String(value.since ?? '') } : undefined;
  } catch {
    return undefined;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists, under another user.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The words a person needs: who holds it, and the two ways out. */
export function inUseMessage(dataDir: string, holder: Holder): string {
  return (
    `The embedded database in ${dataDir} is in use by process ${holder.pid} (${holder.command || 'unknown command'}), since ${holder.since || 'an unknown time'}. ` +
    'Only one process may open it at a time: stop that process (a running `npm run dev`, `npm start` or `npm run db:*`), ' +
    'or give this one a database of its own with PGLITE_DATA_DIR (for example PGLITE_DATA_DIR=.data/second).'
  );
}

/**
 * Takes `dataDir` for this process, or throws `DataDirInUse` naming the process that has it.
 * Answers the release (also run when the process exits). Opening it again in the same process
 * is allowed: the lock is the process's.
 */
export function lockDataDir(dataDir: string): () => void {
  const file = `${dataDir}.lock`;
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      fs.writeFileSync(file, JSON.stringify({ pid: process.pid, command: process.argv.slice(1).join(' ').slice(0, 200), since: new Date().toISOString() }), {
        flag: 'wx',
      });
      const release = (): void => {
        if (holderOf(file)?.pid === process.pid) fs.rmSync(file, { force: true });
      };
      process.once('exit', release);
      return release;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const holder = holderOf(file);
      if (holder?.pid === process.pid) return () => {};
      if (holder && alive(holder.pid)) throw new DataDirInUse(inUseMessage(dataDir, holder));
      // Its process is gone (or the file is half written by a racing start: the next attempt reads it again).
      if (!holder && attempt === 0) continue;
      fs.rmSync(file, { force: true });
    }
  }
  throw new DataDirInUse(`Could not take the embedded database in ${dataDir}: another process keeps taking ${file}.`);
}
