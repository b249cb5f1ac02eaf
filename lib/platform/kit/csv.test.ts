import { describe, expect, it } from 'vitest';
import { csvDataUrl, toCsv } from './csv';

describe('console CSV', () => {
  it('writes RFC 4180 rows: CRLF, quoted fields with commas, quotes or line breaks', () => {
    expect(
      toCsv(
        ['name', 'revenue_usd'],
        [
          ['Sidebar, top', 1.5],
          ['Say "hi"', 0],
          ['two\nlines', null],
        ],
      ),
    ).toBe('name,revenue_usd\r\n"Sidebar, top",1.5\r\n"Say ""hi""",0\r\n"two\nlines",\r\n');
  });

  it('keeps a spreadsheet from running a name as a formula', () => {
    expect(toCsv(['name'], [['=HYPERLINK("x")'], ['+1'], ['-2'], ['@SUM(A1)'], ['plain']])).toBe(
      'name\r\n"\'=HYPERLINK(""x"")"\r\n\'+1\r\n\'-2\r\n\'@SUM(A1)\r\nplain\r\n',
    );
  });

  it('quotes a field with a semicolon or a tab, so a spreadsheet whose separator is ; keeps it one cell', () => {
    expect(toCsv(['name'], [['plain; text'], ['a\tb']])).toBe('name\r\n"plain; text"\r\n"a\tb"\r\n');
  });

  /**
   * How spreadsheets of other locales, or that split before they honour quotes, cut a file into
   * cells: on `;`, on `,`, on tabs, or on all of them, line by line.
   */
  const SPLITTERS: Record<string, RegExp> = { semicolon: /;/, comma: /,/, tab: /\t/, any: /[;,\t]/ };
  const cellsOf = (csv: string, on: RegExp) => csv.split(/\r\n|\r|\n/).flatMap((line) => line.split(on));
  /** A cell a spreadsheet would run: it starts (after spaces or quotes) with =, +, - or @, or with a tab or a carriage return. */
  const runs = (cell: string) => /^[\t\r]/.test(cell) || /^[\s"]*[=+\-@]/.test(cell);

  it.each(Object.keys(SPLITTERS))('leaves no formula in any cell when a spreadsheet splits the lines on %s, quotes or not', (name) => {
    const names = [
      'x;=1+1',
      'x;=HYPERLINK("https://evil.example","Click");',
      'x,=1+1',
      'x\t=1+1',
      'x; -2+3',
      'x;"=1+1',
      'x;\t=1',
      'x;\t\r;@SUM(A1)',
      'two\n=lines',
      'two\r\n+lines',
      '\t=1',
      '=1;=2,+3\t@4',
      'Sidebar; top',
    ];
    const csv = toCsv(
      ['app'],
      names.map((n) => [n]),
    );
    const cells = cellsOf(csv, SPLITTERS[name]!);
    expect(cells.filter(runs)).toEqual([]);
    // The names are all still there, an apostrophe in front of what would have run.
    expect(csv).toContain("x;'=1+1");
    expect(csv).toContain('Sidebar; top');
  });

  it('keeps numbers numeric, negative ones too, and text that runs nothing as it was', () => {
    const csv = toCsv(
      ['name', 'spend_usd', 'delta'],
      [
        ['Acme; Inc. - widgets', 12.5, -3],
        ['a - b, c', '0.000100', -0.25],
      ],
    );
    expect(csv).toBe('name,spend_usd,delta\r\n"Acme; Inc. - widgets",12.5,-3\r\n"a - b, c",0.000100,-0.25\r\n');
    expect(toCsv(['n'], [['x; -2']])).toBe('n\r\n"x;\' -2"\r\n');
  });

  it('downloads from a data URL', () => {
    expect(decodeURIComponent(csvDataUrl('a,b\r\n').split(',').slice(1).join(','))).toBe('a,b\r\n');
    expect(csvDataUrl('x')).toMatch(/^data:text\/csv;charset=utf-8,/);
  });
});
