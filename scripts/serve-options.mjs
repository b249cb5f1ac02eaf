// The command line of scripts/serve.mjs, as `next dev` and `next start` read theirs:
// `-p`/`--port` (also `--port=N`) and `-H`/`--hostname`, before the PORT and HOST variables;
// `--dev` for the development server. Anything else is refused, with what is accepted.

/** `argv` (after the script's path) and `env` → `{ dev, port, host }`; throws on a bad option. */
export function serveOptions(argv, env) {
  const options = { dev: false, port: undefined, host: undefined };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const [name, inline] = arg.startsWith('--') && arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
    const value = () => {
      const v = inline ?? argv[++i];
      if (v === undefined || v === '') throw new Error(`${name} needs a value`);
      return v;
    };
    if (name === '--dev') options.dev = true;
    else if (name === '-p' || name === '--port') options.port = value();
    else if (name === '-H' || name === '--hostname') options.host = value();
    else throw new Error(`unknown option ${arg}: the options are -p/--port <port>, -H/--hostname <host> (and --dev)`);
  }
  const port = options.port ?? env.PORT ?? '3000';
  if (!/^\d{1,5}$/.test(String(port)) || Number(port) > 65535) throw new Error(`the port must be a number from 0 to 65535, not ${port}`);
  return { dev: options.dev, port: Number(port), host: options.host ?? (env.HOST || undefined) };
}
