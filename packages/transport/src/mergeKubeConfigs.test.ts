import { describe, expect, it } from '@jest/globals';
import { mergeKubeConfigs } from './mergeKubeConfigs.js';

describe('mergeKubeConfigs', () => {
  it('keeps the first entry of each name and the first current-context, as kubectl merges KUBECONFIG', () => {
    const merged = mergeKubeConfigs([
      { clusters: [{ name: 'a', server: 'https://first', insecureSkipTlsVerify: false }], users: [], contexts: [] },
      {
        clusters: [
          { name: 'a', server: 'https://second', insecureSkipTlsVerify: true },
          { name: 'b', server: 'https://b', insecureSkipTlsVerify: false },
        ],
        users: [{ name: 'u', token: 'second' }],
        contexts: [{ name: 'x', cluster: 'a', user: 'u' }],
        currentContext: 'x',
      },
      { clusters: [], users: [{ name: 'u', token: 'third' }], contexts: [{ name: 'y', cluster: 'b', user: 'u' }], currentContext: 'y' },
    ]);
    expect(merged).toEqual({
      clusters: [
        { name: 'a', server: 'https://first', insecureSkipTlsVerify: false },
        { name: 'b', server: 'https://b', insecureSkipTlsVerify: false },
      ],
      users: [{ name: 'u', token: 'second' }],
      contexts: [
        { name: 'x', cluster: 'a', user: 'u' },
        { name: 'y', cluster: 'b', user: 'u' },
      ],
      currentContext: 'x',
    });
  });
});
