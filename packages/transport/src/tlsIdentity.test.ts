import { describe, expect, it } from '@jest/globals';
import { sameTlsSettings, tlsSettingsOf } from './tlsIdentity.js';

const pem = (body: string): Buffer => Buffer.from(`-----BEGIN CERTIFICATE-----\n${body}\n-----END CERTIFICATE-----\n`);

describe('sameTlsSettings', () => {
  it('holds settings read again into new Buffers with the same bytes to be the same identity', () => {
    const read = () => ({ ca: pem('AAAA'), cert: pem('BBBB'), key: pem('CCCC'), servername: 'api.example', rejectUnauthorized: true });
    expect(sameTlsSettings(read(), read())).toBe(true);
    // A string and a Buffer with its bytes are the same certificate.
    expect(sameTlsSettings({ ca: pem('AAAA').toString() }, { ca: pem('AAAA') })).toBe(true);
    expect(sameTlsSettings({}, {})).toBe(true);
  });

  it('tells a rotated certificate, key, CA, servername or verification apart', () => {
    const base = { ca: pem('AAAA'), cert: pem('BBBB'), key: pem('CCCC'), servername: 'api.example', rejectUnauthorized: true };
    expect(sameTlsSettings(base, { ...base, cert: pem('BBBC') })).toBe(false);
    expect(sameTlsSettings(base, { ...base, key: pem('CCCC ') })).toBe(false);
    expect(sameTlsSettings(base, { ...base, ca: [pem('AAAA')] })).toBe(false);
    expect(sameTlsSettings(base, { ...base, servername: 'other.example' })).toBe(false);
    expect(sameTlsSettings(base, { ...base, rejectUnauthorized: false })).toBe(false);
    expect(sameTlsSettings(base, { ...base, rejectUnauthorized: undefined })).toBe(false);
    expect(sameTlsSettings({ ca: '' }, {})).toBe(false);
  });

  it('compares arrays element by element and key entries member by member', () => {
    expect(sameTlsSettings({ ca: [pem('A'), pem('B')] }, { ca: [pem('A'), pem('B')] })).toBe(true);
    expect(sameTlsSettings({ ca: [pem('A'), pem('B')] }, { ca: [pem('B'), pem('A')] })).toBe(false);
    expect(sameTlsSettings({ ca: [pem('A')] }, { ca: [pem('A'), pem('A')] })).toBe(false);
    const key = (passphrase: string) => ({ key: [{ pem: pem('K'), passphrase }] });
    expect(sameTlsSettings(key('one'), key('one'))).toBe(true);
    expect(sameTlsSettings(key('one'), key('two'))).toBe(false);
    expect(sameTlsSettings({ key: [{ pem: pem('K') }] }, key('one'))).toBe(false);
    expect(sameTlsSettings({ pfx: [{ buf: pem('P'), passphrase: 'x' }] }, { pfx: [{ buf: pem('Q'), passphrase: 'x' }] })).toBe(false);
  });
});

describe('tlsSettingsOf', () => {
  it('keeps only the TLS fields that are set', () => {
    const ca = pem('AAAA');
    expect(tlsSettingsOf({ ca, headers: { authorization: 'Bearer x' }, servername: undefined, host: 'h' })).toEqual({ ca });
  });
});
