import { describe, expect, it } from '@jest/globals';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { PROTEAN_VERSIONS } from './proteanVersions.js';

describe('PROTEAN_VERSIONS', () => {
  it('lists every published @protean/* package of the repository at its version', () => {
    const packages = fileURLToPath(new URL('../../', import.meta.url));
    const published = Object.fromEntries(
      readdirSync(packages)
        .map(
          (dir) =>
            JSON.parse(readFileSync(`${packages}${dir}/package.json`, 'utf8')) as { name: string; version: string; private?: boolean },
        )
        .filter((m) => m.name.startsWith('@protean/') && m.private !== true)
        .map((m) => [m.name, m.version]),
    );
    expect(PROTEAN_VERSIONS).toEqual(published);
  });
});
