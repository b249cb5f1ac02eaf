import { createHash } from 'node:crypto';
import { closeSync, openSync, readdirSync, readFileSync, readSync, renameSync, watch, writeFileSync, type FSWatcher } from 'node:fs';
import path from 'node:path';

/**
 * The site's stylesheet: app/globals.css (Tailwind CSS v4, its theme and our few classes) built by
 * Tailwind's own compiler (@tailwindcss/node, with its class scanner @tailwindcss/oxide) into
 * app/globals.generated.css, which the root layout imports as a plain CSS file. The generated file
 * is not committed (.gitignore).
 *
 * Why not Tailwind's PostCSS plugin in Next's CSS pipeline: Turbopack runs PostCSS in Node.js
 * processes of its own, and ran them again at every start of `npm run dev`, inputs unchanged:
 * starting the process, loading Tailwind and scanning app/ came after the first page's compile and
 * before its answer, about a second on two cores (`npm run dev:first-run`). Built here, the
 * stylesheet is built again only when one of its inputs changed: its first line holds a hash of
 * them. Turbopack then caches a plain CSS file like any other.
 *
 * The inputs: every file under app/ (class names are read from there alone, `source('.')` in
 * app/globals.css; `buildStyles` refuses a stylesheet that asks for more) and the installed
 * versions of Tailwind's packages. next.config.ts calls `ensureStyles` whenever Next loads its
 * configuration to compile (`npm run dev`, `next build`; not `next start`), and `watchStyles` in development, so a
 * class written in a component reaches the page while the server runs, as it did with the plugin.
 */

export const STYLES_INPUT = 'app/globals.css';
export const STYLES_OUTPUT = 'app/globals.generated.css';

/** Bumped when the way the file is built changes, so that an old one is built again. */
const BUILD_VERSION = 1;
const PACKAGES = ['tailwindcss', '@tailwindcss/node', '@tailwindcss/oxide', '@tailwindcss/typography'];
const HEADER = '/* Built from app/globals.css by lib/platform/styles/tailwind.ts; do not edit. Inputs: ';

/** Every file under `dir`, as paths relative to it, sorted; the generated stylesheet left out. */
function filesUnder(root: string, dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(/*turbopackIgnore: true*/ path.join(root, dir), { withFileTypes: true })) {
    const relative = path.posix.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...filesUnder(root, relative));
    else if (entry.isFile() && relative !== STYLES_OUTPUT) out.push(relative);
  }
  return out.sort();
}

function installedVersion(root: string, name: string): string {
  try {
    return (JSON.parse(readFileSync(/*turbopackIgnore: true*/ path.join(root, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return 'missing';
  }
}

/** A hash of what the stylesheet is built from: the files under app/ (names and contents) and Tailwind's versions. */
export function stylesInputsHash(root: string): string {
  const hash = createHash('sha256');
  hash.update(`build ${BUILD_VERSION}\n`);
  for (const name of PACKAGES) hash.update(`${name}@${installedVersion(root, name)}\n`);
  for (const file of filesUnder(root, path.posix.dirname(STYLES_INPUT))) {
    hash.update(`${file}\n`);
    hash.update(readFileSync(/*turbopackIgnore: true*/ path.join(root, file)));
    hash.update('\n');
  }
  return hash.digest('hex');
}

/** The hash the generated stylesheet was built from, or null when there is none. */
function builtFrom(root: string): string | null {
  const file = path.join(root, STYLES_OUTPUT);
  let fd: number;
  try {
    fd = openSync(/*turbopackIgnore: true*/ file, 'r');
  } catch {
    return null;
  }
  // The header line alone (its hash is 64 characters), not the whole stylesheet.
  const start = Buffer.alloc(HEADER.length + 128);
  let read: number;
  try {
    read = readSync(fd, start, 0, start.length, 0);
  } finally {
    closeSync(fd);
  }
  const first = start.toString('utf8', 0, read).split('\n', 1)[0]!;
  return first.startsWith(HEADER) ? first.slice(HEADER.length).replace(/ \*\/$/, '') : null;
}

/** The stylesheet's CSS, built from app/globals.css and the class names Tailwind finds under app/. */
export async function buildStyles(root: string): Promise<string> {
  const { compile } = await import('@tailwindcss/node');
  const { Scanner } = await import('@tailwindcss/oxide');
  const input = path.join(root, STYLES_INPUT);
  const base = path.dirname(input);
  const compiler = await compile(readFileSync(/*turbopackIgnore: true*/ input, 'utf8'), { base, from: input, onDependency: () => {} });
  const sources = [
    ...(compiler.root === 'none' ? [] : [compiler.root === null ? { base, pattern: '**/*', negated: false } : { ...compiler.root, negated: false }]),
    ...compiler.sources,
  ];
  const scanner = new Scanner({ sources });
  // The hash covers app/ alone: a source elsewhere would be read once and then never noticed.
  const outside = scanner.normalizedSources.filter((s) => path.relative(base, s.base).startsWith('..'));
  if (outside.length) {
    throw new Error(
      `${STYLES_INPUT} reads class names outside app/ (${outside.map((s) => s.base).join(', ')}): lib/platform/styles/tailwind.ts would not see them change`,
    );
  }
  return compiler.build(scanner.scan());
}

/**
 * Builds app/globals.generated.css when it is missing or was built from other inputs, and answers
 * whether it did. The file is replaced whole (written beside it, then renamed), so Turbopack and a
 * second process never read half of it.
 */
export async function ensureStyles(root = process.cwd()): Promise<boolean> {
  const inputs = stylesInputsHash(root);
  if (builtFrom(root) === inputs) return false;
  const css = await buildStyles(root);
  const output = path.join(root, STYLES_OUTPUT);
  const partial = `${output}.${process.pid}.tmp`;
  writeFileSync(/*turbopackIgnore: true*/ partial, `${HEADER}${inputs} */\n${css}`);
  renameSync(/*turbopackIgnore: true*/ partial, output);
  return true;
}

const WATCHERS = Symbol.for('monetize.styles.watchers');

/**
 * In development: builds the stylesheet again after a change under app/ (a tenth of a second after
 * the last of a burst of changes), while the process runs. A failed build is reported and the
 * previous stylesheet stays. One watcher per folder and process, whatever number of times the
 * configuration loads; null when there is one already.
 */
export function watchStyles(root = process.cwd(), report: (message: string) => void = console.error): FSWatcher | null {
  const held = globalThis as unknown as Record<symbol, Map<string, FSWatcher> | undefined>;
  const watchers = (held[WATCHERS] ??= new Map());
  if (watchers.has(root)) return null;
  let timer: NodeJS.Timeout | undefined;
  let running = Promise.resolve();
  const rebuild = () => {
    running = running.then(() =>
      ensureStyles(root).then(
        () => undefined,
        (err: unknown) => report(`${STYLES_OUTPUT} was not rebuilt: ${err instanceof Error ? err.message : String(err)}`),
      ),
    );
  };
  const dir = path.posix.dirname(STYLES_INPUT);
  const watcher = watch(/*turbopackIgnore: true*/ path.join(root, dir), { recursive: true }, (_event, name) => {
    const file = name ? path.posix.join(dir, String(name).split(path.sep).join('/')) : '';
    if (file === STYLES_OUTPUT || file.startsWith(`${STYLES_OUTPUT}.`)) return;
    clearTimeout(timer);
    timer = setTimeout(rebuild, 100);
  });
  watcher.unref();
  watcher.on('close', () => {
    clearTimeout(timer);
    watchers.delete(root);
  });
  watchers.set(root, watcher);
  return watcher;
}
