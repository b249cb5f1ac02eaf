import { cssVariables, DARK, LIGHT } from './tokens';

/**
 * A minimal, self-contained HTML page for responses that route handlers render themselves (the
 * authorization endpoint): no external fonts, scripts or styles, so it works under a strict CSP.
 */

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

const STYLE = `
:root{color-scheme:light;${cssVariables(LIGHT)}}
@media (prefers-color-scheme:dark){:root{color-scheme:dark;${cssVariables(DARK)}}}
body{font-family:ui-sans-serif,system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;line-height:1.55;color:var(--foreground);background:var(--muted);margin:0;-webkit-font-smoothing:antialiased}
.brand{display:flex;align-items:center;gap:.5rem;max-width:36rem;margin:2rem auto 0;padding:0 1rem;font-weight:700;font-size:1.1rem}
.mark{display:grid;place-items:center;width:1.75rem;height:1.75rem;border-radius:.4rem;background:var(--primary);color:var(--primary-foreground);font-size:.85rem}
main{max-width:36rem;margin:1rem auto 3rem;background:var(--card);border:1px solid var(--border);border-radius:.75rem;padding:2rem;box-shadow:0 1px 2px #0000000d}
@media (max-width:40rem){main{margin:1rem .75rem;padding:1.25rem}}
h1{font-size:1.35rem;line-height:1.3;margin-top:0;letter-spacing:-.01em}h2{font-size:1rem}
.scopes{padding-left:1.2rem}.scopes li{margin:.35rem 0}code{font-size:.85em;color:var(--muted-foreground)}
.warning{background:color-mix(in oklch,var(--warning) 15%,transparent);border:1px solid color-mix(in oklch,var(--warning) 50%,transparent);border-radius:.5rem;padding:.6rem .8rem}
form{display:flex;flex-wrap:wrap;gap:.6rem;margin-top:1.5rem}
button{font:inherit;font-weight:500;font-size:.9rem;height:2.5rem;padding:0 1.2rem;border-radius:.45rem;border:1px solid var(--input);background:var(--card);color:var(--foreground);cursor:pointer}
button.primary{background:var(--primary);border-color:var(--primary);color:var(--primary-foreground)}
button:focus-visible,a:focus-visible{outline:2px solid var(--ring);outline-offset:2px}
a{color:var(--primary);text-underline-offset:3px}`;

export function htmlPage(options: { title: string; body: string }): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<title>${escapeHtml(options.title)} · Monetize</title>
<style>${STYLE}</style>
</head>
<body>
<header class="brand"><span class="mark" aria-hidden="true">M</span>Monetize</header>
<main>
${options.body}
</main>
</body>
</html>
`;
}
