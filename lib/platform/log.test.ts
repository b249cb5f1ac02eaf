import { afterEach, describe, expect, it, vi } from 'vitest';
import { resetEnv } from './env';
import { log, MAX_LOGGED_CHARS } from './log';

describe('log', () => {
  afterEach(() => {
    vi.restoreAllMocks();
    vi.unstubAllEnvs();
    resetEnv();
  });

  it('keeps at most MAX_LOGGED_CHARS of any text value, and says how much it left out', () => {
    vi.stubEnv('LOG_LEVEL', 'warn');
    resetEnv();
    const lines: string[] = [];
    vi.spyOn(console, 'error').mockImplementation((line: string) => void lines.push(line));
    log.error('a long value', { detail: 'y'.repeat(100_000), nested: { text: 'z'.repeat(5_000) }, short: 'kept' });
    expect(lines).toHaveLength(1);
    expect(lines[0]!.length).toBeLessThan(3 * MAX_LOGGED_CHARS);
    const line = JSON.parse(lines[0]!);
    expect(line.detail).toBe(`${'y'.repeat(MAX_LOGGED_CHARS)}… (${100_000 - MAX_LOGGED_CHARS} more characters)`);
    expect(line.nested.text.startsWith('z'.repeat(MAX_LOGGED_CHARS))).toBe(true);
    expect(line.short).toBe('kept');
  });
});
