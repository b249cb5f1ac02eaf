import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ApiError, ERROR_CODES, type ErrorCode } from './errors';

/** The closed table of API error codes, as published in content/docs/errors.md. */
function documentedCodes(): Record<string, number> {
  const page = readFileSync(path.resolve(__dirname, '../../../content/docs/errors.md'), 'utf8');
  const section = page.slice(page.indexOf('| Code | Status |'));
  const table = section.slice(0, section.indexOf('\n\n'));
  return Object.fromEntries([...table.matchAll(/^\| `([a-z_]+)` \| (\d{3}) \|/gm)].map((m) => [m[1]!, Number(m[2])]));
}

describe('API error codes', () => {
  it('are exactly the codes and statuses the errors page documents', () => {
    expect(ERROR_CODES).toEqual(documentedCodes());
  });

  it('answer in the envelope with the status of their code', () => {
    const e = new ApiError('account_unavailable', 'm', {}, { extra: 1 });
    expect([e.status, e.body()]).toEqual([502, { extra: 1, error: { status: 502, code: 'account_unavailable', message: 'm' } }]);
    const codes: ErrorCode[] = ['invalid_request', 'rate_limited'];
    expect(codes.map((c) => new ApiError(c, 'x').status)).toEqual([400, 429]);
  });
});
