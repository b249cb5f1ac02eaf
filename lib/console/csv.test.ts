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

  it('quotes a field with a semicolon or a tab, so a spreadsheet whose separator is ; keeps it one cell (no formula after the ;)', () => {
    expect(toCsv(['name'], [['x;=1+1;'], ['a\t=2'], ['plain; text']])).toBe('name\r\n"x;=1+1;"\r\n"a\t=2"\r\n"plain; text"\r\n');
  });

  it('downloads from a data URL', () => {
    expect(decodeURIComponent(csvDataUrl('a,b\r\n').split(',').slice(1).join(','))).toBe('a,b\r\n');
    expect(csvDataUrl('x')).toMatch(/^data:text\/csv;charset=utf-8,/);
  });
});
