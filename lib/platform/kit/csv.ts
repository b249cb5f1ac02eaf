/**
 * CSV for every download we produce (the console's earnings, the advertisers' reports): RFC 4180,
 * comma-separated, CRLF line ends, a field quoted when it holds a comma, a semicolon, a tab, a
 * quote or a line break, quotes doubled.
 *
 * Text cells hold what other accounts typed (an advertiser's report names the publishers' apps),
 * and the file may be opened by any spreadsheet. One that splits lines on `;` or a tab (the
 * separator of many locales), or that splits before it honours quotes, starts a cell after every
 * such separator inside our field, quotes or not: `"x;=1+1"` is the cells `"x` and `=1+1"`, a
 * formula. So a text field is defused wherever a cell could begin in it, by any reader: at its
 * start, and after each `,`, `;`, tab or line break. If what follows there (after any spaces or
 * quotes) starts with `=`, `+`, `-` or `@`, or is a tab or a carriage return, an apostrophe goes
 * in front of it, which every spreadsheet reads as "this is text" (OWASP's advice for CSV
 * injection). A cell given as a number is written as it is, so it stays a number.
 */

export type Cell = string | number | null;

/**
 * A place where a cell may begin (the field's start, or just after a separator) with, ahead, what
 * would make it a formula. Zero-width, so a tab is both a separator and what follows one.
 */
const CELL_THAT_RUNS = /(?<=^|[,;\t\r\n])(?=[\t\r]|[\s"]*[=+\-@])/g;

/** `text` with an apostrophe wherever a spreadsheet splitting it on `,`, `;`, tabs or lines would see a formula start. */
export function defused(text: string): string {
  return text.replace(CELL_THAT_RUNS, "'");
}

function field(cell: Cell): string {
  if (cell === null) return '';
  if (typeof cell === 'number') return String(cell);
  const text = defused(cell);
  return /[",;\t\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

export function toCsv(header: readonly string[], rows: readonly (readonly Cell[])[]): string {
  return [header, ...rows].map((row) => row.map(field).join(',')).join('\r\n') + '\r\n';
}

/** A link target that downloads `csv` without a request to the server. */
export function csvDataUrl(csv: string): string {
  return `data:text/csv;charset=utf-8,${encodeURIComponent(csv)}`;
}
