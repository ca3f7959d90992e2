import { describe, expect, it } from '@jest/globals';
import { matchesFormat } from './schemaFormats.js';

describe('matchesFormat', () => {
  it.each([
    ['date-time', '2026-12-04T10:00:00Z', 'tomorrow'],
    ['date-time', '2026-12-04T10:00:00.5+01:00', '2026-12-04'],
    ['date', '2026-12-04', '2026-13-45'],
    ['uuid', '0b6f7a1e-8a3c-4c63-9f55-5d8a3c2a1b10', 'not-a-uuid'],
    ['duration', '1h30m', 'often'],
    ['duration', '3 days', 'h1'],
    ['ipv4', '10.0.0.1', '10.0.0.256'],
    ['ipv6', '::1', '10.0.0.1'],
    ['cidr', '10.0.0.0/8', '10.0.0.0/33'],
    ['mac', '00:1a:2b:3c:4d:5e', '00:1a:2b'],
    ['hostname', 'api.example.com', 'bad_host'],
    ['byte', 'aGVsbG8=', 'not base64!'],
    ['uri', 'https://example.com/x', 'no scheme'],
  ])('%s accepts %s and refuses %s', (format, good, bad) => {
    expect(matchesFormat(format, good)).toBe(true);
    expect(matchesFormat(format, bad)).toBe(false);
  });

  it('does not check a format kube-apiserver does not know', () => {
    expect(matchesFormat('my-format', 'anything')).toBe(true);
  });
});
