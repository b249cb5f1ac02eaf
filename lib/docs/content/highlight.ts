import hljs from 'highlight.js/lib/core';
import bash from 'highlight.js/lib/languages/bash';
import http from 'highlight.js/lib/languages/http';
import javascript from 'highlight.js/lib/languages/javascript';
import json from 'highlight.js/lib/languages/json';
import typescript from 'highlight.js/lib/languages/typescript';
import xml from 'highlight.js/lib/languages/xml';

/**
 * Syntax highlighting of the code blocks of rendered markdown, on the server when the pages are
 * loaded: highlight.js's core with only the languages the docs' fences use (sh, json, http, js,
 * jsx, ts, tsx, html; and their aliases). The result is `<span class="hljs-…">` around escaped
 * text, coloured by app/highlight.css; no script reaches the browser.
 */
hljs.registerLanguage('bash', bash); // also sh, zsh
hljs.registerLanguage('http', http); // a body is highlighted as whichever of these it reads as
hljs.registerLanguage('javascript', javascript); // also js, jsx, mjs, cjs
hljs.registerLanguage('json', json);
hljs.registerLanguage('typescript', typescript); // also ts, tsx, mts, cts
hljs.registerLanguage('xml', xml); // also html, svg

/**
 * `code` as escaped HTML with highlight classes, or undefined when `lang` is not a language
 * registered here (the caller shows the block plain: marked's own escaped output).
 */
export function highlightCode(code: string, lang: string): string | undefined {
  if (!lang || !hljs.getLanguage(lang)) return undefined;
  // ignoreIllegals: a sample the grammar does not expect is still shown, highlighted as far as it goes.
  return hljs.highlight(code, { language: lang, ignoreIllegals: true }).value;
}
