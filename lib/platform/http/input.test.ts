import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ApiError } from './errors';
import { jsonDepth, MAX_JSON_DEPTH, parseJson, readBody } from './input';

const arrays = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
const objects = (depth: number) => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);

describe('jsonDepth', () => {
  it.each([
    ['a number', '1', 0],
    ['a string', '"x"', 0],
    ['an empty object', '{}', 1],
    ['an object in an array', '[{}]', 2],
    ['brackets inside a string, which do not count', '{"a":"[[[{{{"}', 1],
    ['an escaped quote before brackets inside a string', '{"a":"\\"[[[","b":[1]}', 2],
    ['an escaped backslash that ends a string', '{"a":"\\\\","b":[[1]]}', 3],
    ['siblings, which do not add up', '[[1],[2],[[3]]]', 3],
  ])('measures %s', (_, text, depth) => {
    expect(jsonDepth(text, 100)).toBe(depth);
  });

  it('stops counting past the limit: 9,000 levels cost no more than the limit', () => {
    expect(jsonDepth(arrays(9000), MAX_JSON_DEPTH)).toBe(MAX_JSON_DEPTH + 1);
  });
});

describe('parseJson', () => {
  it(`parses JSON nested ${MAX_JSON_DEPTH} levels deep`, () => {
    expect(() => parseJson(arrays(MAX_JSON_DEPTH))).not.toThrow();
    expect(() => parseJson(objects(MAX_JSON_DEPTH))).not.toThrow();
  });

  it.each([
    ['arrays', arrays(MAX_JSON_DEPTH + 1)],
    ['objects', objects(MAX_JSON_DEPTH + 1)],
    ['9,000 levels of arrays', arrays(9000)],
  ])(`refuses JSON nested more than ${MAX_JSON_DEPTH} levels deep (%s)`, (_, text) => {
    expect(() => parseJson(text)).toThrow(expect.objectContaining({ name: 'JsonTooDeep', value: expect.anything() }));
  });

  it('throws a SyntaxError for text that is not JSON, however deep it looks', () => {
    expect(() => parseJson('{"a":')).toThrow(SyntaxError);
    expect(() => parseJson(`${arrays(9000)}x`)).toThrow(SyntaxError);
  });
});

describe('readBody', () => {
  const post = (body: string) => new Request('http://localhost/x', { method: 'POST', headers: { 'content-type': 'application/json' }, body });

  it('reads a body nested as deep as the limit', async () => {
    expect(await readBody(post(arrays(MAX_JSON_DEPTH)), z.unknown(), 'json')).toBeDefined();
  });

  it.each([
    ['9,000 levels', arrays(9000)],
    ['one level past the limit', objects(MAX_JSON_DEPTH + 1)],
  ])('refuses a body nested too deep (%s) with 400 invalid_request, before any schema walks it', async (_, text) => {
    const schema = z.unknown().refine(() => {
      throw new Error('the schema must not be reached');
    });
    const err = await readBody(post(text), schema, 'json').then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ code: 'invalid_request', message: `The body nests arrays and objects more than ${MAX_JSON_DEPTH} levels deep.` });
  });

  it('also refuses a sendBeacon body (text/plain JSON) nested too deep', async () => {
    const request = new Request('http://localhost/x', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: arrays(9000) });
    await expect(readBody(request, z.unknown(), 'beacon')).rejects.toMatchObject({ code: 'invalid_request' });
  });
});
