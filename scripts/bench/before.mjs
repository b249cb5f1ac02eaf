/**
 * BENCH_BEFORE=<git revision>: the same endpoints measured on that revision too, built from a
 * checkout of it in the system's temporary folder (our node_modules, hard-linked), in the same run: what a change
 * did, on the same machine in the same hour. Its embedded database is its own, seeded on start.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { root } from '../bench-process.mjs';

export const BEFORE = process.env.BENCH_BEFORE?.trim() || undefined;
// Outside this folder: a checkout inside it would see our lockfile and node_modules above its own,
// and the build would mix the two (two copies of React).
export const BEFORE_DIR = path.join(os.tmpdir(), 'monetize-bench-before');

/** The server of the BENCH_BEFORE checkout (TARGETS.before in ./servers.mjs), when there is one. */
export const BEFORE_TARGET = BEFORE
  ? {
      port: 3303,
      cwd: BEFORE_DIR,
      env: { PGLITE_DATA_DIR: '.data/bench', DATABASE_URL: '' },
      ready: '/api/v1/pricing',
      async create() {
        fs.rmSync(path.join(BEFORE_DIR, '.data/bench'), { recursive: true, force: true });
        return true;
      },
      // The server seeds its own database on first start; no token is needed for what it measures.
      fresh: false,
    }
  : undefined;

/** A fresh checkout of BENCH_BEFORE in BEFORE_DIR, with our node_modules. */
export function checkOutBefore() {
  const git = (...args) => {
    const r = spawnSync('git', args, { cwd: root, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr.trim()}`);
  };
  spawnSync('git', ['worktree', 'remove', '--force', BEFORE_DIR], { cwd: root }); // from a run before, if any
  fs.rmSync(BEFORE_DIR, { recursive: true, force: true });
  git('worktree', 'prune');
  git('worktree', 'add', '--detach', BEFORE_DIR, BEFORE);
  // Hard links, not a symlink: Turbopack resolves nothing outside the project's own folder.
  const copy = spawnSync('cp', ['-al', path.join(root, 'node_modules'), path.join(BEFORE_DIR, 'node_modules')]);
  if (copy.status !== 0) throw new Error(`could not link node_modules into ${BEFORE_DIR}: ${copy.stderr}`);
}
