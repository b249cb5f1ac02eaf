import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { impressionSnippet, KEY_PLACEHOLDER, reactSnippet, scriptTagSnippet, SDK_RELEASE } from './snippets';

const root = path.resolve(__dirname, '../..');
const input = { origin: 'https://ads.example.org', placementId: '0b5c3f8e-1111-4222-8333-444455556666', format: 'sponsored_card' };

describe('the console snippets', () => {
  it('name the released script this server serves, with its true integrity hash', () => {
    const version = JSON.parse(readFileSync(path.join(root, 'packages/sdk/package.json'), 'utf8')).version;
    expect(SDK_RELEASE.version).toBe(version);
    expect(SDK_RELEASE.path).toBe(`/sdk/v${version}.js`);
    const bytes = readFileSync(path.join(root, 'public', SDK_RELEASE.path));
    expect(SDK_RELEASE.integrity).toBe(`sha384-${createHash('sha384').update(bytes).digest('base64')}`);
  });

  it('fill in the origin, the placement, its format and the hash; the key when given, the placeholder otherwise', () => {
    const tag = scriptTagSnippet({ ...input, key: 'pk_live_abc' });
    expect(tag).toContain(`<script src="https://ads.example.org${SDK_RELEASE.path}" integrity="${SDK_RELEASE.integrity}" crossorigin="anonymous"></script>`);
    expect(tag).toContain('Monetize.createClient({ key: "pk_live_abc", baseUrl: "https://ads.example.org" })');
    expect(tag).toContain(`monetize.render('#monetize-0b5c3f8e', "${input.placementId}", { format: "sponsored_card" })`);
    expect(tag).toContain('<div id="monetize-0b5c3f8e"></div>');
    expect(scriptTagSnippet(input)).toContain(`key: "${KEY_PLACEHOLDER}"`);
    const react = reactSnippet({ ...input, key: 'pk_live_abc' });
    expect(react).toContain(`placementId="${input.placementId}" format="sponsored_card"`);
    expect(react).toContain('createClient({ key: "pk_live_abc", baseUrl: "https://ads.example.org" })');
  });

  it("pass a sponsored follow-up the app's own way to ask its question, and no other format", () => {
    const followUp = { ...input, format: 'sponsored_follow_up' };
    expect(scriptTagSnippet(followUp)).toContain('{ format: "sponsored_follow_up", onAsk: (question) => askAssistant(question) }');
    expect(reactSnippet(followUp)).toContain('onAsk={(question) => askAssistant(question)}');
    expect(scriptTagSnippet(input)).not.toContain('onAsk');
    expect(reactSnippet(input)).not.toContain('onAsk');
  });

  it('never invent viewability figures: the HTTP impression sends what the app measured', () => {
    expect(impressionSnippet(input.origin)).not.toMatch(/visible_(share|seconds):\s*\d/);
    expect(impressionSnippet(input.origin)).toContain('measured.visibleShare');
  });
});
