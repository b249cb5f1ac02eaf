/**
 * CSV for the console's downloads (RFC 4180: comma-separated, CRLF line ends, a field quoted
 * when it holds a comma, a quote or a line break, quotes doubled). A field holding a semicolon or
 * a tab is quoted too: spreadsheets in locales whose separator is `;` would otherwise split
 * `x;=1+1` into cells, the second one a formula. A text that a spreadsheet
 * would run as a formula (starting with =, +, -, @, tab or carriage return) is prefixed with
 * an apostrophe: names are the publisher's own, but the file may be opened anywhere.
 */

export type Cell = string | number | null;

function field(cell: Cell): string {
  if (cell === null) return '';
  if (typeof cell === 'number') return String(cell);
  const text = /^[=+\-@\t\r]/.test(cell) ? `'${cell}` : cell;
  return /[",;\t\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

export function toCsv(header: readonly string[], rows: readonly (readonly Cell[])[]): string {
  return [header, ...rows].map((row) => row.map(field).join(',')).join('\r\n') + '\r\n';
}

/** A link target that downloads `csv` without a request to the server. */
export function csvDataUrl(csv: string): string {
  return `data:text/csv;charset=utf-8,${encodeURIComponent(csv)}`;
}
