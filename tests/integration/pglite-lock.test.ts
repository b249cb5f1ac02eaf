import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';

/**
 * One process per embedded database (lib/platform/db/pglite-lock.ts), with real processes: a second one
 * is refused with a message naming the first and what to do; `npm run db:reset` is refused
 * too and deletes nothing; a lock left by a killed process is taken over; a closed database
 * frees its directory.
 */

const root = path.resolve(__dirname, '../..');
const tsx = path.join(root, 'node_modules/tsx/dist/cli.mjs');
const holdScript = path.join(root, 'tests/fixtures/hold-pglite.ts');
const running: ChildProcess[] = [];
const made: string[] = [];

/** A process holding the database in `dir`, once it says so. */
async function hold(dir: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, [tsx, holdScript, dir], { cwd: root, stdio: ['pipe', 'pipe', 'pipe'] });
  running.push(child);
  await new Promise<void>((resolve, reject) => {
    let out = '';
    let err = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('open')) resolve();
    });
    child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    child.on('exit', (code) => reject(new Error(`the holder exited (${code}): ${err}`)));
  });
  return child;
}

/** Runs the holder to completion (stdin closed at once): its exit code and stderr. */
function tryOnce(dir: string): { status: number | null; stderr: string } {
  const r = spawnSync(process.execPath, [tsx, holdScript, dir], { cwd: root, input: '', encoding: 'utf8', timeout: 60_000 });
  return { status: r.status, stderr: r.stderr };
}

const exited = (child: ChildProcess) =>
  new Promise<void>((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve() : child.on('exit', () => resolve())));

afterEach(async () => {
  for (const child of running.splice(0)) {
    child.kill('SIGKILL');
    await exited(child);
  }
});

afterAll(() => {
  for (const dir of made) fs.rmSync(dir, { recursive: true, force: true });
});

describe('the embedded database, opened by two processes', () => {
  const fresh = () => {
    const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'monetize-lock-'));
    made.push(parent);
    return path.join(parent, 'pglite');
  };

  it('refuses the second, naming the first and what to do, and frees the directory when the first closes', async () => {
    const dir = fresh();
    const first = await hold(dir);
    const second = tryOnce(dir);
    expect(second.status).toBe(1);
    expect(second.stderr).toContain(`The embedded database in ${dir} is in use by process`);
    expect(second.stderr).toContain('hold-pglite.ts');
    expect(second.stderr).toContain('PGLITE_DATA_DIR');

    first.stdin!.end();
    await exited(first);
    expect(first.exitCode).toBe(0);
    expect(fs.existsSync(`${dir}.lock`)).toBe(false);
    expect(tryOnce(dir)).toEqual({ status: 0, stderr: '' });
  }, 120_000);

  it('refuses npm run db:reset while a server has it, deleting nothing', async () => {
    const dir = fresh();
    await hold(dir);
    const before = fs.readdirSync(dir).length;
    const reset = spawnSync(process.execPath, [tsx, 'scripts/db.ts', 'reset'], {
      cwd: root,
      encoding: 'utf8',
      env: { ...process.env, PGLITE_DATA_DIR: dir, DATABASE_URL: '' },
      timeout: 60_000,
    });
    expect(reset.status).toBe(1);
    expect(reset.stderr).toContain('is in use by process');
    expect(fs.readdirSync(dir).length).toBe(before);
  }, 120_000);

  it('takes over a lock whose process was killed', async () => {
    const dir = fresh();
    const first = await hold(dir);
    first.kill('SIGKILL');
    await exited(first);
    // tsx runs the script in a child of its own: wait until the holder itself is gone.
    const holder = JSON.parse(fs.readFileSync(`${dir}.lock`, 'utf8')) as { pid: number };
    for (let i = 0; i < 50; i++) {
      try {
        process.kill(holder.pid, 0);
        process.kill(holder.pid, 'SIGKILL');
      } catch {
        break;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(tryOnce(dir)).toEqual({ status: 0, stderr: '' });
  }, 120_000);
});
