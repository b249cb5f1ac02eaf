import { markdownToText, type Page } from '../content/pages';

/**
 * The passages /ask answers from: each page cut into sections at its headings, and each section
 * into blocks (a paragraph, a list, a row of a table). Code blocks are left out: an answer is
 * prose, and the page a citation links to shows the code.
 */

export interface Passage {
  /** The page's site path: `/pricing`, `/docs/payouts`. */
  path: string;
  pageTitle: string;
  /** The heading of the section the passage is in, as plain text; null before the first one. */
  section: string | null;
  /** The heading's id on the rendered page (a deep link), or null. */
  anchor: string | null;
  /** Plain text. Items of a list and rows of a table are separate lines. */
  text: string;
}

const FENCE = /^\s{0,3}(```|~~~)/;
const ATX_HEADING = /^\s{0,3}(#{1,6})\s+(.*?)(?:\s+#+)?\s*$/;
const LIST_ITEM = /^\s*(?:[-*+]|\d+[.)])\s+/;
const TABLE_ROW = /^\s*\|/;
const TABLE_RULE = /^\s*\|?\s*:?-{3,}/;

function cells(row: string): string[] {
  return row
    .trim()
    .replace(/^\|/, '')
    .replace(/\|$/, '')
    .split('|')
    .map((c) => markdownToText(c.trim()));
}

/**
 * A table row as a line that reads on its own: the first cell, then each other cell under its
 * column's name ("`tooltip` — CPM (USD): 4; Publisher's share per 1,000 impressions: 2.80").
 */
function tableLines(lines: string[]): string[] {
  const rows = lines.filter((l) => !TABLE_RULE.test(l));
  const [header, ...body] = rows.map(cells);
  if (!header) return [];
  return body
    .filter((row) => row.some((c) => c !== ''))
    .map((row) => {
      const [first, ...rest] = row;
      const described = rest.map((c, i) => (header[i + 1] ? `${header[i + 1]}: ${c}` : c)).filter((c) => c.trim() !== '');
      return described.length ? `${first} — ${described.join('; ')}.` : `${first}.`;
    });
}

/** One block of markdown (no blank lines inside) as passages: one per table row, one otherwise. */
function blockTexts(block: string[]): string[] {
  if (block.every((l) => TABLE_ROW.test(l))) return tableLines(block);
  if (LIST_ITEM.test(block[0]!)) {
    // Items on their own lines; a wrapped item's continuation joins its item.
    const items: string[] = [];
    for (const line of block) {
      if (LIST_ITEM.test(line) || items.length === 0) items.push(line.replace(LIST_ITEM, ''));
      else items[items.length - 1] += ` ${line.trim()}`;
    }
    const text = items.map((i) => markdownToText(i).replace(/\n/g, ' ')).join('\n');
    return text ? [text] : [];
  }
  const text = markdownToText(block.join('\n')).replace(/\s*\n\s*/g, ' ');
  return text ? [text] : [];
}

/** The passages of one page, in reading order. */
export function passagesOf(page: Page): Passage[] {
  const passages: Passage[] = [];
  // The page's headings carry the ids its HTML uses (deduplicated in order): walk them alongside.
  let nextHeading = 0;
  let section: string | null = null;
  let anchor: string | null = null;
  let block: string[] = [];
  let inFence = false;

  const flush = () => {
    if (block.length) {
      for (const text of blockTexts(block)) passages.push({ path: page.path, pageTitle: page.title, section, anchor, text });
    }
    block = [];
  };

  for (const line of page.markdown.split(/\r?\n/)) {
    if (FENCE.test(line)) {
      flush();
      inFence = !inFence;
      continue;
    }
    if (inFence) continue;
    const heading = ATX_HEADING.exec(line);
    if (heading) {
      flush();
      const raw = heading[2]!;
      const found = page.headings.findIndex((h, i) => i >= nextHeading && h.text === raw);
      if (found !== -1) nextHeading = found + 1;
      // The page's own title (`# Title`) opens the introduction, which has no section.
      if (heading[1] === '#') {
        section = null;
        anchor = null;
      } else {
        section = markdownToText(raw);
        anchor = found !== -1 ? page.headings[found]!.id : null;
      }
      continue;
    }
    if (line.trim() === '') flush();
    else block.push(line);
  }
  flush();
  return passages;
}
