import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allPages, contentDir, pageByPath, parseFrontMatter, pathForFile, renderMarkdown, twinPath, WRITTEN_ORIGIN } from '@/lib/docs/content/pages';
import type { Engine } from '@/lib/platform/db/engine';
import { env } from '@/lib/platform/env';
import { MemoryRateLimiter } from '@/lib/platform/http/rate-limit';
import { pagesBody } from '@/lib/schemas/pages';
import { openPgliteCopy } from '../helpers/db';
import { handlersOf } from '../helpers/routes';
import { makeServices, setTestServices } from '../helpers/services';

/**
 * The public site and its machine-readable twins (content/docs/search.md): every listed page has
 * a markdown twin (`<path>.md`), llms.txt, llms-full.txt and the sitemap list exactly the
 * public pages, and nothing behind a credential or a consent screen is listed anywhere.
 */

const pagesHandlers = handlersOf('/api/v1/pages');
const llmsFullHandlers = handlersOf('/llms-full.txt');
const llmsHandlers = handlersOf('/llms.txt');
const markdownHandlers = handlersOf('/markdown/[[...slug]]');
const robotsHandlers = handlersOf('/robots.txt');
const sitemapHandlers = handlersOf('/sitemap.xml');

type Params = Record<string, string | string[] | undefined>;
type Get = (req: Request, ctx: { params: Promise<Params> }) => Promise<Response>;

const base = () => env().PUBLIC_BASE_URL;
const get = (handler: unknown, url: string, params: Params = {}) =>
  (handler as Get)(new Request(`http://localhost${url}`, { headers: { 'x-forwarded-for': '192.0.2.66' } }), {
    params: Promise.resolve(params),
  });

/** Paths that are never public pages: account, OAuth and machine surfaces. */
const NOT_PUBLIC = ['/oauth', '/signin', '/signup', '/dashboard', '/api', '/markdown'];

/** The slug the `[[...slug]]` route receives for a page path: none for home. */
const slugOf = (pagePath: string) => (pagePath === '/' ? undefined : pagePath.slice(1).split('/'));

/** Every markdown file under content/, read from disk (not through the loader under test). */
function contentFiles(dir = contentDir()): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const full = path.join(dir, name);
      if (statSync(full).isDirectory()) return contentFiles(full);
      return name.endsWith('.md') ? [full] : [];
    });
}

/**
 * The code blocks of rendered HTML: each one's language and its text as a reader sees it. Inside
 * a block only highlight spans may be markup: anything else fails here, so escaping is checked.
 */
function codeBlocks(html: string): { lang: string | undefined; text: string }[] {
  return [...html.matchAll(/<pre tabindex="0"><code(?: class="language-([^"]*)")?>([\s\S]*?)<\/code><\/pre>/g)].map(([, lang, inner]) => {
    const markup = inner!.replace(/<span class="[\w -]+">|<\/span>/g, '');
    expect(markup).not.toMatch(/[<>]/);
    const text = markup.replace(/&(lt|gt|quot|#39|#x27|amp);/g, (_, e: string) => ({ lt: '<', gt: '>', quot: '"', '#39': "'", '#x27': "'", amp: '&' })[e]!);
    return { lang, text };
  });
}

let db: Engine;
let listed: { path: string; url: string; title: string; description: string; markdown_url: string }[] = [];

beforeAll(async () => {
  db = await openPgliteCopy();
  setTestServices(makeServices({ database: db, rateLimiter: new MemoryRateLimiter({ max: 100_000, windowSeconds: 60 }) }));
  // Walk the whole listing at the largest page size.
  let cursor: string | null = null;
  do {
    const res = await get(pagesHandlers.GET, `/api/v1/pages?limit=100${cursor ? `&cursor=${cursor}` : ''}`);
    expect(res.status).toBe(200);
    const body = pagesBody.parse(await res.json());
    listed.push(...body.pages);
    cursor = body.pagination.next_cursor;
  } while (cursor);
});
afterAll(async () => {
  listed = [];
  setTestServices(undefined);
  await db?.close();
});

describe('the page listing', () => {
  it('lists exactly allPages(), in order', () => {
    expect(listed.map((p) => p.path)).toEqual(allPages().map((p) => p.path));
  });

  it('lists exactly the markdown files under content/', () => {
    const fromDisk = contentFiles().map((f) => pathForFile(path.relative(contentDir(), f)));
    expect(listed.map((p) => p.path).sort()).toEqual(fromDisk.sort());
  });

  it('lists nothing behind a credential, a consent screen or a machine surface', () => {
    const offenders = listed.filter((p) => NOT_PUBLIC.some((prefix) => p.path === prefix || p.path.startsWith(`${prefix}/`)));
    expect(offenders.map((p) => p.path)).toEqual([]);
  });

  it('gives each page its URL, title, description and twin URL (<path>.md, /index.md for home)', () => {
    for (const p of listed) {
      const page = pageByPath(p.path)!;
      expect(p).toEqual({
        path: page.path,
        url: `${base()}${page.path}`,
        title: page.title,
        description: page.description,
        markdown_url: `${base()}${page.path === '/' ? '/index' : page.path}.md`,
      });
    }
    expect(listed.find((p) => p.path === '/')?.markdown_url).toBe(`${base()}/index.md`);
  });
});

describe('markdown twins', () => {
  it('has a home page to twin', () => {
    expect(listed.some((p) => p.path === '/')).toBe(true);
  });

  it.each(allPages().map((p) => ({ path: p.path, slug: slugOf(p.path) })))(
    'the twin of $path is its markdown, as text/markdown',
    async ({ path: pagePath, slug }) => {
      const res = await get(markdownHandlers.GET, `/markdown${pagePath === '/' ? '' : pagePath}`, { slug });
      expect(res.status).toBe(200);
      expect(res.headers.get('Content-Type')).toBe('text/markdown; charset=utf-8');
      expect(res.headers.get('Link')).toBe(`<${base()}${pagePath}>; rel="canonical"`);
      expect(res.headers.get('Access-Control-Allow-Origin')).toBe('*');
      expect(res.headers.get('Cache-Control')).toBe('public, max-age=300');
      expect(await res.text()).toBe(pageByPath(pagePath)!.markdown);
    },
  );

  it('/index.md (slug ["index"]) is the home page twin', async () => {
    const res = await get(markdownHandlers.GET, '/markdown/index', { slug: ['index'] });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe(pageByPath('/')!.markdown);
  });

  it.each(['/no-such-page', '/docs/no-such-page', '/api/v1', '/dashboard', '/oauth/authorize'].map((p) => ({ path: p, slug: slugOf(p)! })))(
    'an unknown page ($path) has no twin: 404 in the envelope',
    async ({ slug }) => {
      const res = await get(markdownHandlers.GET, `/markdown/${slug.join('/')}`, { slug });
      expect(res.status).toBe(404);
      expect(res.headers.get('Cache-Control')).toBe('no-store');
      expect(await res.json()).toEqual({ error: { status: 404, code: 'not_found', message: expect.stringContaining(`/${slug.join('/')}`) } });
    },
  );
});

describe('llms.txt, llms-full.txt, sitemap.xml and robots.txt', () => {
  it('/llms.txt lists the twin URL of every page, and only twins of listed pages', async () => {
    const res = await get(llmsHandlers.GET, '/llms.txt');
    expect(res.status).toBe(200);
    expect(res.headers.get('Content-Type')).toBe('text/plain; charset=utf-8');
    const text = await res.text();
    for (const p of listed) expect(text).toContain(`](${p.markdown_url})`);
    const linked = [...text.matchAll(/^- \[[^\]]*\]\(([^)]+)\)/gm)].map((m) => m[1]);
    expect(linked.sort()).toEqual(listed.map((p) => p.markdown_url).sort());
  });

  it('/llms-full.txt contains the title and the full markdown of every page', async () => {
    const res = await get(llmsFullHandlers.GET, '/llms-full.txt');
    expect(res.status).toBe(200);
    const text = await res.text();
    for (const p of listed) {
      expect(text).toContain(p.title);
      expect(text).toContain(pageByPath(p.path)!.markdown.trim());
    }
  });

  it('/sitemap.xml lists every page URL and nothing else', async () => {
    const res = await get(sitemapHandlers.GET, '/sitemap.xml');
    expect(res.status).toBe(200);
    expect(res.headers.get('Content-Type')).toBe('application/xml; charset=utf-8');
    const xml = await res.text();
    expect(xml.startsWith('<?xml version="1.0" encoding="UTF-8"?>')).toBe(true);
    const locs = [...xml.matchAll(/<loc>([^<]*)<\/loc>/g)].map((m) => m[1]!);
    expect(locs).toEqual(listed.map((p) => p.url));
    const paths = locs.map((l) => new URL(l).pathname);
    const offenders = paths.filter((p) => NOT_PUBLIC.some((prefix) => p === prefix || p.startsWith(`${prefix}/`)));
    expect(offenders).toEqual([]);
  });

  it('/robots.txt disallows /oauth/ and /dashboard and points to the sitemap', async () => {
    const res = await get(robotsHandlers.GET, '/robots.txt');
    expect(res.status).toBe(200);
    const lines = (await res.text()).split('\n');
    expect(lines).toContain('User-agent: *');
    for (const p of ['/oauth/', '/dashboard', '/api/', '/signin', '/markdown/']) expect(lines).toContain(`Disallow: ${p}`);
    expect(lines).toContain(`Sitemap: ${base()}/sitemap.xml`);
  });
});

describe('lib/docs/content/pages', () => {
  describe('parseFrontMatter', () => {
    it.each([
      {
        name: 'plain values',
        source: '---\ntitle: Pricing\ndescription: What it costs.\n---\n# Pricing\n',
        data: { title: 'Pricing', description: 'What it costs.' },
        body: '# Pricing\n',
      },
      {
        name: 'a value holding a colon keeps everything after the first one',
        source: '---\ntitle: Errors: the table\ndescription: x\n---\nbody',
        data: { title: 'Errors: the table', description: 'x' },
        body: 'body',
      },
      {
        name: 'quoted values lose their quotes',
        source: `---\ntitle: "Quoted: yes"\ndescription: 'single'\n---\nbody`,
        data: { title: 'Quoted: yes', description: 'single' },
        body: 'body',
      },
      {
        name: 'CRLF line endings',
        source: '---\r\ntitle: Windows\r\ndescription: CRLF\r\n---\r\n# Windows\r\n',
        data: { title: 'Windows', description: 'CRLF' },
        body: '# Windows\r\n',
      },
      {
        name: 'lines without a key are skipped',
        source: '---\ntitle: T\n: nokey\njunk\ndescription: D\n---\n',
        data: { title: 'T', description: 'D' },
        body: '',
      },
      { name: 'no front matter: the whole source is the body', source: '# Just a body\n', data: {}, body: '# Just a body\n' },
      { name: 'front matter not at the start is body', source: '\n---\ntitle: T\n---\n', data: {}, body: '\n---\ntitle: T\n---\n' },
    ])('$name', ({ source, data, body }) => {
      expect(parseFrontMatter(source)).toEqual({ data, body });
    });
  });

  describe('pathForFile and twinPath', () => {
    it.each([
      ['index.md', '/'],
      ['pricing.md', '/pricing'],
      ['docs/index.md', '/docs'],
      ['docs/x.md', '/docs/x'],
      ['docs/api/index.md', '/docs/api'],
      ['docs\\x.md', '/docs/x'],
    ])('pathForFile(%s) is %s', (file, expected) => {
      expect(pathForFile(file)).toBe(expected);
    });

    it.each([
      ['/', '/index.md'],
      ['/pricing', '/pricing.md'],
      ['/docs', '/docs.md'],
      ['/docs/x', '/docs/x.md'],
    ])('twinPath(%s) is %s', (pagePath, expected) => {
      expect(twinPath(pagePath)).toBe(expected);
    });
  });

  describe('renderMarkdown', () => {
    it('gives headings ids from their text, and lists them', () => {
      const { html, headings } = renderMarkdown('# Hello World\n\n## Sub-section: one\n\n### Rate limits (429)\n');
      expect(headings).toEqual([
        { depth: 1, text: 'Hello World', id: 'hello-world' },
        { depth: 2, text: 'Sub-section: one', id: 'sub-section-one' },
        { depth: 3, text: 'Rate limits (429)', id: 'rate-limits-429' },
      ]);
      expect(html).toContain('<h1 id="hello-world">Hello World</h1>');
      expect(html).toContain('<h2 id="sub-section-one">Sub-section: one</h2>');
    });

    it('numbers repeated headings so every id is unique', () => {
      const { headings } = renderMarkdown('## Errors\n\n## Errors\n\n## Errors\n');
      expect(headings.map((h) => h.id)).toEqual(['errors', 'errors-1', 'errors-2']);
    });

    it('renders inline markup in headings as elements, and keeps it out of the id', () => {
      const { html, headings } = renderMarkdown('## The `limit` parameter and **bold**\n');
      expect(headings[0]!.id).toBe('the-limit-parameter-and-bold');
      expect(html).toContain('<h2 id="the-limit-parameter-and-bold">The <code>limit</code> parameter and <strong>bold</strong></h2>');
      expect(html).not.toContain('&lt;code&gt;');
    });

    it('renders links, emphasis, tables and lists as HTML, not as escaped text', () => {
      const { html } = renderMarkdown('See [the docs](/docs) and *this*.\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n- one\n- two\n');
      expect(html).toContain('<a href="/docs">the docs</a>');
      expect(html).toContain('<em>this</em>');
      expect(html).toContain('<table tabindex="0">');
      expect(html).toContain('<li>one</li>');
      expect(html).not.toMatch(/&lt;(a|em|table|li)\b/);
    });

    it('makes code blocks and tables focusable, so a keyboard can scroll them', () => {
      const { html } = renderMarkdown('```json\n{"a": 1}\n```\n\n| a |\n|---|\n| 1 |\n');
      expect(html).toMatch(/<pre tabindex="0"><code class="language-json">/);
      expect(html).toContain('<table tabindex="0">');
      expect(html).not.toMatch(/<(pre|table)>/);
    });

    it('escapes markup inside code once, and ampersands in text once', () => {
      const { html, headings } = renderMarkdown('## Q&A\n\nFees & shares.\n\n```html\n<script>alert(1)</script>\n```\n\nInline `<b>` code.\n');
      expect(headings[0]).toEqual({ depth: 2, text: 'Q&A', id: 'qa' });
      expect(html).toContain('<h2 id="qa">Q&amp;A</h2>');
      expect(html).toContain('Fees &amp; shares.');
      expect(codeBlocks(html)).toEqual([{ lang: 'html', text: '<script>alert(1)</script>\n' }]);
      expect(html).toContain('<code>&lt;b&gt;</code>');
      expect(html).not.toContain('<script>');
      expect(html).not.toMatch(/&amp;(amp|lt|gt|quot|#39);/);
    });

    it('highlights a fence in a language of the docs on the server: classes on spans, the text unchanged', () => {
      const source = 'const fee: number = 0.3; // 30% of "gross" & <net>\n';
      const { html } = renderMarkdown(`\`\`\`ts\n${source}\`\`\`\n`);
      expect(html).toContain('<pre tabindex="0"><code class="language-ts"><span class="hljs-keyword">const</span>');
      expect(html).toContain('<span class="hljs-number">0.3</span>');
      expect(html).toContain('<span class="hljs-comment">// 30% of &quot;gross&quot; &amp; &lt;net&gt;</span>');
      expect(codeBlocks(html)).toEqual([{ lang: 'ts', text: source }]);
    });

    it.each(['sh', 'json', 'http', 'js', 'jsx', 'ts', 'tsx', 'html'])('highlights a %s fence', (lang) => {
      const samples: Record<string, string> = {
        sh: 'curl -s "$BASE/api/v1/pages" # list',
        json: '{"limit": 20, "next": null}',
        http: 'HTTP/1.1 200 OK\nContent-Type: application/json',
        js: 'export const a = await fetch(url);',
        jsx: 'const b = <Button onClick={go}>Pay</Button>;',
        ts: 'let c: string | undefined;',
        tsx: 'export function D(): JSX.Element { return null; }',
        html: '<a href="/docs">Docs</a>',
      };
      const { html } = renderMarkdown(`\`\`\`${lang}\n${samples[lang]}\n\`\`\`\n`);
      expect(html).toMatch(/<span class="hljs-/);
      expect(codeBlocks(html)).toEqual([{ lang, text: `${samples[lang]}\n` }]);
    });

    it('leaves a fence without a language, `text` or an unknown language plain, and escaped', () => {
      for (const [fence, open] of [
        ['', '<code>'],
        ['text', '<code class="language-text">'],
        ['cobol', '<code class="language-cobol">'],
        ['ts"><img>', '<code class="language-ts&quot;&gt;&lt;img&gt;">'],
      ]) {
        const { html } = renderMarkdown(`\`\`\`${fence}\n<script>alert(1)</script> & <b>\n\`\`\`\n`);
        expect(html).toContain(`<pre tabindex="0">${open}&lt;script&gt;alert(1)&lt;/script&gt; &amp; &lt;b&gt;\n</code></pre>`);
        expect(html).not.toContain('<span');
      }
    });

    it('renders markup in a highlighted fence as text, never as elements (no way out of the code block)', () => {
      const cases = [
        ['html', '<script>alert(1)</script>'],
        ['ts', 'const s = "</code></pre><script>alert(1)</script>"; // <img src=x onerror=alert(1)>'],
        ['json', '{"a": "</code><script>alert(1)</script>", "b": "\'&quot;"}'],
        ['http', 'HTTP/1.1 200 OK\nX-A: <script>alert(1)</script>\n\n<script>alert(1)</script>'],
      ] as const;
      for (const [lang, source] of cases) {
        const { html } = renderMarkdown(`\`\`\`${lang}\n${source}\n\`\`\`\n`);
        expect(html).not.toMatch(/<(script|img)\b/i);
        expect(codeBlocks(html)).toEqual([{ lang, text: `${source}\n` }]);
      }
    });
  });

  describe('every content file', () => {
    const files = contentFiles();

    it('exists (the site is not empty)', () => {
      expect(files.length).toBeGreaterThan(0);
    });

    it.each(files.map((f) => path.relative(contentDir(), f)))(
      'content/%s has a title, a description and exactly one H1, equal to the title, at the top',
      (rel) => {
        const { data, body } = parseFrontMatter(readFileSync(path.join(contentDir(), rel), 'utf8'));
        expect(data.title?.trim()).toBeTruthy();
        expect(data.description?.trim()).toBeTruthy();
        const h1 = renderMarkdown(body).headings.filter((h) => h.depth === 1);
        expect(h1.map((h) => h.text)).toEqual([data.title]);
        expect(body.trimStart().startsWith(`# ${data.title}\n`)).toBe(true);
      },
    );
  });
});

describe('the origin in docs samples', () => {
  it('is the server’s own (PUBLIC_BASE_URL), in the page, its twin and its search text, wherever the source writes the placeholder origin', () => {
    const origin = env().PUBLIC_BASE_URL;
    let samples = 0;
    for (const page of allPages()) {
      const file = page.path === '/' ? 'index.md' : `${page.path.slice(1)}.md`;
      const source = readFileSync(path.join(contentDir(), existsAsIndex(file)), 'utf8');
      const written = source.split(WRITTEN_ORIGIN).length - 1;
      samples += written;
      for (const text of [page.markdown, page.html, page.text]) expect(text, page.path).not.toContain(WRITTEN_ORIGIN);
      if (written > 0) expect(page.markdown.split(origin).length - 1, page.path).toBeGreaterThanOrEqual(written);
    }
    expect(samples).toBeGreaterThan(50);
  });
});

/** `docs.md` is written as `docs/index.md`. */
function existsAsIndex(file: string): string {
  const direct = path.join(contentDir(), file);
  try {
    statSync(direct);
    return file;
  } catch {
    return file.replace(/\.md$/, '/index.md');
  }
}
