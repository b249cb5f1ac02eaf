/**
 * A minimal, self-contained HTML page for responses that route handlers render themselves (the
 * authorization endpoint): no external fonts, scripts or styles, so it works under a strict CSP.
 */

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

const STYLE = `
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;line-height:1.5;color:#1a1a1a;background:#f6f7f9;margin:0}
main{max-width:36rem;margin:3rem auto;background:#fff;border:1px solid #dde1e6;border-radius:8px;padding:2rem}
h1{font-size:1.4rem;margin-top:0}h2{font-size:1.05rem}
.scopes li{margin:.35rem 0}code{font-size:.85em;color:#555}
.warning{background:#fff6e0;border-left:4px solid #d48806;padding:.6rem .8rem}
button{font:inherit;padding:.55rem 1.2rem;margin-right:.6rem;border-radius:6px;border:1px solid #8a94a6;background:#fff;cursor:pointer}
button.primary{background:#1f5fd1;border-color:#1f5fd1;color:#fff}
button:focus-visible,a:focus-visible{outline:3px solid #f5a623;outline-offset:2px}
a{color:#1f5fd1}`;

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
<main>
${options.body}
</main>
</body>
</html>
`;
}
