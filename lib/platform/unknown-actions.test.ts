import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it, vi } from 'vitest';
import { quietUnknownServerActions, UNKNOWN_ACTION_INTERVAL_MS } from './unknown-actions';

vi.mock('@/lib/process', () => ({ openAtStart: vi.fn(async () => false) }));

/**
 * A made-up `Next-Action` id costs at most one short line of log a minute, not Next's stack trace
 * per request (./unknown-actions.ts). The errors are Next's own, built by its own functions, so an
 * upgrade that changes them fails here.
 */

const require = createRequire(import.meta.url);
const next = require('next/dist/server/app-render/manifests-singleton') as {
  getActionNotFoundError(id: string): Error;
  getInvalidServerReferenceIdError(id: string): Error;
};

function setup() {
  const written: string[] = [];
  const target = { warn: (...args: unknown[]) => void written.push(args.map((a) => (a instanceof Error ? (a.stack ?? a.message) : String(a))).join(' ')) };
  const report = vi.fn();
  let clock = 1_000_000;
  quietUnknownServerActions(target, { now: () => clock, report });
  return { target, written, report, advance: (ms: number) => (clock += ms) };
}

describe('unknown server action ids in the log', () => {
  it('Next warns with its error, stack and all, for each request naming an action it does not have', () => {
    // What the quieting stands on: Next's handler of an unrecognized action writes the error with console.warn.
    const handler = readFileSync(require.resolve('next/dist/server/app-render/action-handler.js'), 'utf8');
    const unrecognized = handler.slice(handler.indexOf('const handleUnrecognizedAction'), handler.indexOf("// If it can't be a Server Action"));
    expect(unrecognized).toContain('console.warn(err)');
    expect(handler).toContain("new Error('Invalid Server Actions request.')");
    expect(next.getActionNotFoundError('7f'.repeat(21)).stack!.length).toBeGreaterThan(300);
  });

  it('writes one line a minute, counting the requests, whatever the ids', () => {
    const { target, written, report, advance } = setup();
    const errors = [
      next.getActionNotFoundError('7f'.repeat(21)),
      next.getInvalidServerReferenceIdError('made-up'),
      next.getInvalidServerReferenceIdError('x'.repeat(5000)),
      new Error('Invalid Server Actions request.'),
    ];
    for (let i = 0; i < 1000; i++) target.warn(errors[i % errors.length]);
    expect(written).toEqual([]);
    expect(report).toHaveBeenCalledTimes(1);
    expect(report).toHaveBeenLastCalledWith({ requests: 1, interval_s: UNKNOWN_ACTION_INTERVAL_MS / 1000 });
    // The id is never in the line: a client chose it.
    expect(JSON.stringify(report.mock.calls)).not.toMatch(/7f7f|made-up/);

    advance(UNKNOWN_ACTION_INTERVAL_MS - 1);
    target.warn(errors[0]);
    expect(report).toHaveBeenCalledTimes(1);
    advance(1);
    target.warn(errors[1]);
    expect(report).toHaveBeenCalledTimes(2);
    expect(report).toHaveBeenLastCalledWith({ requests: 1001, interval_s: 60 });
  });

  it('lets every other warning through as it was, and wraps the console once', () => {
    const { target, written, report } = setup();
    const other = new Error('Something else went wrong');
    target.warn(other);
    target.warn('Failed to find Server Action "x"', 'as text, with another argument');
    expect(written).toHaveLength(2);
    expect(written[0]).toContain('Something else went wrong');
    expect(report).not.toHaveBeenCalled();
    const wrapped = target.warn;
    quietUnknownServerActions(target);
    expect(target.warn).toBe(wrapped);
  });

  it('writes a short line to the server log by default', () => {
    const lines: string[] = [];
    const error = vi.spyOn(console, 'error').mockImplementation((line: string) => void lines.push(line));
    vi.stubEnv('LOG_LEVEL', 'info');
    try {
      const target: { warn: (...args: unknown[]) => void } = { warn: () => {} };
      quietUnknownServerActions(target);
      for (let i = 0; i < 100; i++) target.warn(next.getActionNotFoundError('7f'.repeat(21)));
      expect(lines).toHaveLength(1);
      expect(lines[0]!.length).toBeLessThan(200);
      expect(JSON.parse(lines[0]!)).toMatchObject({ level: 'warn', requests: 1 });
    } finally {
      error.mockRestore();
      vi.unstubAllEnvs();
    }
  });

  it("is in place once the server has started (instrumentation.ts), on the process's console", async () => {
    const original = console.warn;
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    const stdout = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    vi.stubEnv('NEXT_RUNTIME', 'nodejs');
    try {
      const { register } = await import('@/instrumentation');
      await register();
      expect(console.warn).not.toBe(original);
      stderr.mockClear();
      for (let i = 0; i < 50; i++) console.warn(next.getActionNotFoundError('7f'.repeat(21)));
      const written = [...stderr.mock.calls, ...stdout.mock.calls].map(([chunk]) => String(chunk)).join('');
      expect(written).not.toContain('Failed to find Server Action');
      expect(written.length).toBeLessThan(200);
    } finally {
      console.warn = original;
      delete (console as unknown as Record<symbol, unknown>)[Symbol.for('monetize.unknownServerActionsQuiet')];
      stderr.mockRestore();
      stdout.mockRestore();
      vi.unstubAllEnvs();
    }
  });
});
