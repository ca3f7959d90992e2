import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from '@jest/globals';
import { parseManifests, readKustomization, toYaml, UnsupportedKustomizationError } from './deployManifests.js';

describe('readKustomization', () => {
  let dir: string;
  const write = (name: string, text: string): void => writeFileSync(join(dir, name), text);
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('renders resources in order with the namespace and labels transformations, as kubectl kustomize does', () => {
    dir = mkdtempSync(join(tmpdir(), 'kustomize-'));
    write('kustomization.yaml', 'resources:\n  - rbac.yaml\n  - crd\nnamespace: ops\nlabels:\n  - pairs: { app: ctl }\n');
    write(
      'rbac.yaml',
      [
        'apiVersion: v1\nkind: ServiceAccount\nmetadata: { name: ctl }',
        'apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata: { name: ctl }\n' +
          'roleRef: { apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: ctl }\n' +
          'subjects: [{ kind: ServiceAccount, name: ctl, namespace: default }]',
      ].join('\n---\n'),
    );
    mkdirSync(join(dir, 'crd'));
    writeFileSync(join(dir, 'crd', 'kustomization.yaml'), 'resources: [crd.yaml]\n');
    writeFileSync(
      join(dir, 'crd', 'crd.yaml'),
      'apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: { name: w.example.com }\n',
    );
    const objects = readKustomization(dir);
    expect(objects.map((o) => [o.kind, o.metadata.namespace, o.metadata.labels])).toEqual([
      ['ServiceAccount', 'ops', { app: 'ctl' }],
      ['ClusterRoleBinding', undefined, { app: 'ctl' }],
      ['CustomResourceDefinition', undefined, { app: 'ctl' }],
    ]);
    expect(objects[1]!['subjects']).toEqual([{ kind: 'ServiceAccount', name: 'ctl', namespace: 'ops' }]);
    expect(parseManifests(toYaml(objects))).toEqual(objects);
  });

  it('refuses a kustomization field it does not render, naming it', () => {
    dir = mkdtempSync(join(tmpdir(), 'kustomize-'));
    write('kustomization.yaml', 'resources: []\nnamePrefix: x-\n');
    expect(() => readKustomization(dir)).toThrow(UnsupportedKustomizationError);
    expect(() => readKustomization(dir)).toThrow('the kustomization field "namePrefix" is not supported');
  });
});
