import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain ES module script, without declarations.
import { serveOptions } from '../../scripts/serve-options.mjs';

/** `npm run dev` and `npm start` take their port and host as `next dev` and `next start` do. */
describe('the serve command line', () => {
  const parse = (argv: string[], env: Record<string, string> = {}) => serveOptions(argv, env) as { dev: boolean; port: number; host?: string };

  it('serves on 3000 on every interface by default, and reads PORT and HOST', () => {
    expect(parse([])).toEqual({ dev: false, port: 3000, host: undefined });
    expect(parse(['--dev'], { PORT: '4100', HOST: '127.0.0.1' })).toEqual({ dev: true, port: 4100, host: '127.0.0.1' });
  });

  it('takes -p, --port and --port=, before PORT (npm run dev -- -p 4000)', () => {
    for (const argv of [['-p', '4000'], ['--port', '4000'], ['--port=4000'], ['--dev', '-p', '4000']]) {
      expect(parse(argv, { PORT: '3000' }).port, argv.join(' ')).toBe(4000);
    }
    expect(parse(['-H', '0.0.0.0', '-p', '0']).host).toBe('0.0.0.0');
    expect(parse(['--hostname=::1']).host).toBe('::1');
  });

  it('refuses a missing or bad port, and options it does not know, saying what it takes', () => {
    expect(() => parse(['-p'])).toThrow('-p needs a value');
    expect(() => parse(['--port='])).toThrow('--port needs a value');
    expect(() => parse(['-p', 'http'])).toThrow('the port must be a number');
    expect(() => parse(['-p', '70000'])).toThrow('the port must be a number');
    expect(() => parse([], { PORT: 'abc' })).toThrow('the port must be a number');
    expect(() => parse(['--turbo'])).toThrow('unknown option --turbo: the options are -p/--port');
  });
});
