import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { Marked, type Tokens } from 'marked';
import { env } from '../../platform/env';
import { highlightCode } from './highlight';

/**
 * The public site: markdown files under content/ with `title` and `description` front matter.
 * `content/index.md` is `/`, `content/docs/x.md` is `/docs/x`. Loaded once per process, then kept:
 * every page, twin, search result and llms.txt comes from this one read.
 */

export interface Heading {
  depth: number;
  text: string;
  id: string;
}

export interface Page {
  /** The site path: `/`, `/pricing`, `/docs/payouts`. */
  path: string;
  title: string;
  description: string;
  /** The markdown twin: the body after the front matter (it starts with the `# Title`). */
  markdown: string;
  html: string;
  headings: Heading[];
  /** The body as plain text, for search snippets and /ask passages. */
  text: string;
}

export function contentDir(): string {
  return path.join(process.cwd(), 'content');
}

const FRONT_MATTER = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?/;

export function parseFrontMatter(source: string): { data: Record<string, string>; body: string } {
  const match = FRONT_MATTER.exec(source);
  if (!match) return { data: {}, body: source };
  const data: Record<string, string> = {};
  for (const line of match[1]!.split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const key = line.slice(0, colon).trim();
    let value = line.slice(colon + 1).trim();
    if (/^(['"]).*\1$/.test(value)) value = value.slice(1, -1);
    data[key] = value;
  }
  return { data, body: source.slice(match[0].length) };
}

export function slugify(text: string): string {
  return text
    .toLowerCase()
    .replace(/<[^>]+>/g, '')
    .replace(/[^\p{L}\p{N}\s-]/gu, '')
    .trim()
    .replace(/\s+/g, '-');
}

/** Markdown → HTML for our own trusted content, with ids on headings for deep links. */
export function renderMarkdown(markdown: string): { html: string; headings: Heading[] } {
  const headings: Heading[] = [];
  const seen = new Map<string, number>();
  const marked = new Marked({ gfm: true });
  marked.use({
    renderer: {
      heading(this: { parser: { parseInline(tokens: Tokens.Generic[]): string } }, token: Tokens.Heading) {
        const inner = this.parser.parseInline(token.tokens);
        let id = slugify(token.text) || 'section';
        const n = seen.get(id) ?? 0;
        seen.set(id, n + 1);
        if (n > 0) id = `${id}-${n}`;
        headings.push({ depth: token.depth, text: token.text, id });
        return `<h${token.depth} id="${id}">${inner}</h${token.depth}>\n`;
      },
      // A fence in a language we highlight: marked's own markup, with highlight.js's spans around
      // escaped text inside. Any other (none, `text`, unknown) falls back to marked: plain, escaped.
      code(token: Tokens.Code) {
        const lang = /^\S*/.exec(token.lang ?? '')![0];
        const code = token.text ? `${token.text.replace(/\n$/, '')}\n` : '';
        const highlighted = token.escaped ? undefined : highlightCode(code, lang);
        if (highlighted === undefined) return false;
        return `<pre><code class="language-${lang}">${highlighted}</code></pre>\n`;
      },
    },
  });
  // Code blocks and tables scroll sideways on narrow screens: focusable, so a keyboard can
  // scroll them too (WCAG 2.1.1; axe's scrollable-region-focusable).
  // Each code block gets a copy button (app/_components/code-copy.tsx makes it work; it is
  // hidden until then, so a page without script shows no dead button).
  const html = marked
    .parse(markdown, { async: false })
    .replaceAll('<pre>', '<div class="code-block"><button type="button" class="copy-code" data-copy-code hidden>Copy</button><pre tabindex="0">')
    .replaceAll('</pre>', '</pre></div>')
    .replaceAll('<table>', '<table tabindex="0">');
  return { html, headings };
}

/** Plain text of a markdown body: what a reader sees, without markup. */
export function markdownToText(markdown: string): string {
  // Code spans are quoted exactly: set aside before the markup rules run, put back after.
  const spans: string[] = [];
  return (
    markdown
      .replace(/```[a-z]*\n?/gi, '')
      .replace(/`([^`\n]*)`/g, (_, code: string) => `\uE000${spans.push(code) - 1}\uE001`)
      .replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1')
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .replace(/^#{1,6}\s+/gm, '')
      .replace(/^>\s?/gm, '')
      .replace(/^\s*[-*+]\s+/gm, '')
      .replace(/^\s*\|?\s*:?-{3,}.*$/gm, '')
      .replace(/\|/g, ' ')
      .replace(/\*{1,3}([^*]+)\*{1,3}/g, '$1')
      // Underscores emphasise only at word edges (CommonMark): `min_payout_usd` keeps its own.
      .replace(/(^|[^\p{L}\p{N}_])_{1,3}([^_\n]+?)_{1,3}(?![\p{L}\p{N}_])/gmu, '$1$2')
      .replace(/[ \t]+/g, ' ')
      .replace(/\n{2,}/g, '\n')
      .replace(/\uE000(\d+)\uE001/g, (_, i: string) => spans[Number(i)]!)
      .trim()
  );
}

function filesUnder(dir: string): string[] {
  return readdirSync(/*turbopackIgnore: true*/ dir)
    .sort()
    .flatMap((name) => {
      const full = path.join(/*turbopackIgnore: true*/ dir, name);
      if (statSync(full).isDirectory()) return filesUnder(full);
      return name.endsWith('.md') ? [full] : [];
    });
}

export function pathForFile(relative: string): string {
  const noExt = relative.replace(/\\/g, '/').replace(/\.md$/, '');
  if (noExt === 'index') return '/';
  return `/${noExt.replace(/\/index$/, '')}`;
}

/** The origin the pages are written with; served pages say the server's own (PUBLIC_BASE_URL) instead. */
export const WRITTEN_ORIGIN = 'https://monetize.example';

/**
 * The pages under `dir`. With `origin`, every sample URL says it in place of WRITTEN_ORIGIN, so a
 * developer can paste a sample as it stands against the server that showed it.
 */
export function loadPages(dir = contentDir(), origin?: string): Page[] {
  const pages = filesUnder(dir).map((file) => {
    const source = readFileSync(file, 'utf8');
    const { data, body } = parseFrontMatter(origin ? source.replaceAll(WRITTEN_ORIGIN, origin) : source);
    const rel = path.relative(dir, file);
    if (!data.title || !data.description) throw new Error(`content/${rel}: front matter needs a title and a description`);
    // Rendered when first read, not for every page when the first is asked for: a page's first
    // answer (a fresh server's, or a route's listing paths) renders that page alone.
    let rendered: ReturnType<typeof renderMarkdown> | undefined;
    let text: string | undefined;
    return {
      path: pathForFile(rel),
      title: data.title,
      description: data.description,
      markdown: body.trimStart(),
      get html() {
        return (rendered ??= renderMarkdown(body)).html;
      },
      get headings() {
        return (rendered ??= renderMarkdown(body)).headings;
      },
      // The title is searched as the title; the text starts after it.
      get text() {
        return (text ??= markdownToText(body.replace(/^\s*# .*\n/, '')));
      },
    };
  });
  // Home first, then by path: a stable order for listings and cursors.
  return pages.sort((a, b) => (a.path === '/' ? -1 : b.path === '/' ? 1 : a.path.localeCompare(b.path)));
}

let cache: { pages: Page[]; byPath: Map<string, Page> } | undefined;

function site() {
  if (!cache) {
    const pages = loadPages(contentDir(), env().PUBLIC_BASE_URL);
    cache = { pages, byPath: new Map(pages.map((p) => [p.path, p])) };
  }
  return cache;
}

/** Every public, indexable page, in listing order. */
export function allPages(): Page[] {
  return site().pages;
}

export function pageByPath(p: string): Page | undefined {
  return site().byPath.get(p === '' ? '/' : p.replace(/\/+$/, '') || '/');
}

/** The URL of a page's markdown twin: `/index.md` for home, `<path>.md` otherwise. */
export function twinPath(pagePath: string): string {
  return pagePath === '/' ? '/index.md' : `${pagePath}.md`;
}
