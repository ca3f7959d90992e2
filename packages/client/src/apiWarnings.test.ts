import { describe, expect, it } from '@jest/globals';
import { type GroupVersionResource } from '@protean/core';
import { apiWarningCount } from '@protean/core/internal';
import { LogRecorder } from '@protean/core/testing';
import { parseWarnings, warningsOf } from './apiWarnings.js';
import { KubeApiError } from './KubeApiError.js';
import { KubeClient } from './KubeClient.js';
import type { KubeHttpResponse, KubeTransport } from './KubeTransport.js';

const widgets: GroupVersionResource = { group: 'demo.protean.dev', version: 'v1', resource: 'widgets' };
const PRUNED = '299 - "unknown field \\"status.secretName\\""';

describe('parseWarnings', () => {
  it('reads each warning of a header, joined headers, escaped quotes and commas in the text included', () => {
    expect(parseWarnings(PRUNED)).toEqual(['unknown field "status.secretName"']);
    expect(parseWarnings(`${PRUNED}, 299 - "v1beta1 is deprecated, use v1"`)).toEqual([
      'unknown field "status.secretName"',
      'v1beta1 is deprecated, use v1',
    ]);
    expect(parseWarnings('299 kube-apiserver "a" "Wed, 21 Oct 2015 07:28:00 GMT"')).toEqual(['a']);
    expect(parseWarnings(undefined)).toEqual([]);
    expect(parseWarnings('not a warning')).toEqual([]);
  });
});

describe('KubeClient and the API server warnings', () => {
  function scripted(answers: KubeHttpResponse[]): KubeTransport {
    return { send: () => Promise.resolve(answers.shift()!) };
  }
  const stored = JSON.stringify({ apiVersion: 'demo.protean.dev/v1', kind: 'Widget', metadata: { name: 'w', namespace: 'default' } });

  it('returns them with the answer, counts them, and logs each distinct one once per resource', async () => {
    const log = new LogRecorder('warn');
    const ok = (warning?: string): KubeHttpResponse => ({ status: 200, headers: warning === undefined ? {} : { warning }, body: stored });
    const client = new KubeClient({
      transport: scripted([ok(PRUNED), ok(PRUNED), ok(), { status: 422, headers: { warning: '299 - "spec.size: bad"' }, body: '{}' }]),
      fieldManager: 'test',
      logger: log.logger,
    });
    const before = apiWarningCount();
    const apply = (): Promise<unknown> =>
      client.apply(widgets, { apiVersion: 'demo.protean.dev/v1', kind: 'Widget', metadata: { name: 'w', namespace: 'default' } });
    const first = await apply();
    expect(warningsOf(first)).toEqual(['unknown field "status.secretName"']);
    expect(warningsOf(await apply())).toEqual(['unknown field "status.secretName"']);
    expect(warningsOf(await apply())).toEqual([]);
    const refused = await apply().catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(KubeApiError);
    expect(warningsOf(refused)).toEqual(['spec.size: bad']);
    expect(apiWarningCount() - before).toBe(3);
    const lines = log.find('the API server warned');
    expect(lines.map((l) => l['warning'])).toEqual(['unknown field "status.secretName"', 'spec.size: bad']);
    expect(lines[0]!.msg).toBe('the API server warned about a PATCH of widgets.demo.protean.dev: unknown field "status.secretName"');
  });
});
