// The handler on the in-memory API server: real HTTP, real informers, the real queue and coordinator.
import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { findStatusCondition, KubeClient, type Stored } from '@protean/client';
import { LogRecorder } from '@protean/core/testing';
import { InMemoryApiServer, type KubeObject } from '@protean/in-memory-apiserver';
import { createTestController, routesOf, type TestController } from '@protean/testing';
import { KubernetesInformerSource } from '@protean/watch-manager';
import { parse } from 'yaml';
import { createHandler, type Parent } from './controller.js';
import { CONFIGMAPS, FINALIZER, PARENT, PART_OF_LABEL } from './names.js';

const NS = 'default';
const EVENTS = { group: 'events.k8s.io', version: 'v1', resource: 'events' };

let server: InMemoryApiServer;
let client: KubeClient;
let t: TestController<KubernetesInformerSource>;
let log: LogRecorder;
let stopHandler: AbortController;

beforeEach(async () => {
  // Strict: a write carrying a field deploy/crd.yaml does not declare fails with the server's own words
  // (kube-apiserver would prune it and only warn).
  server = await InMemoryApiServer.start({ fieldValidation: 'Strict' });
  const kubeConfig = server.kubeConfig();
  client = new KubeClient({ kubeConfig });
  // The CRD exactly as deploy/crd.yaml ships it: the server enforces its schema as kube-apiserver does.
  const crd = parse(readFileSync(new URL('../deploy/crd.yaml', import.meta.url), 'utf8')) as KubeObject;
  await client.create({ group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions' }, crd);
  log = new LogRecorder('warn');
  t = createTestController({ source: new KubernetesInformerSource({ kubeConfig }), waitForTimeoutMs: 10_000 });
  await t.start();
  stopHandler = new AbortController();
  await t.register(PARENT.gvr, createHandler({ kubeConfig, controller: t.controller, logger: log.logger, signal: stopHandler.signal }));
});

afterEach(async () => {
  const warned = log.find('the API server warned').map((r) => r.msg);
  await t.dispose();
  stopHandler.abort(); // closes the handler's client: an Event write still retrying must not outlive the test
  client.close();
  await server.stop();
  // And nothing the server warned about (a deprecated API, a field written with fieldValidation Warn) goes unseen.
  expect(warned).toEqual([]);
});

function createParent(name: string, message: string): KubeObject {
  return server.create(PARENT.gvr, {
    apiVersion: PARENT.apiVersion,
    kind: PARENT.kind,
    metadata: { name, namespace: NS },
    spec: { message },
  });
}

const parentOf = (name: string): Stored<Parent> | undefined => server.get(PARENT.gvr, NS, name) as Stored<Parent> | undefined;
const childOf = (name: string): (KubeObject & { data?: Record<string, string> }) | undefined =>
  server.get(CONFIGMAPS, NS, `${name}-{{singular}}`);

describe('the {{kind}} controller', () => {
  it('applies an owned ConfigMap, reports Ready for the generation it read, holds its finalizer and records an Event', async () => {
    const parent = createParent('one', 'hello');
    await t.waitFor(() => findStatusCondition(parentOf('one')?.status?.conditions, 'Ready')?.observedGeneration === 1);

    expect(childOf('one')?.data).toEqual({ message: 'hello', parts: '' });
    expect(childOf('one')?.metadata.ownerReferences).toEqual([
      {
        apiVersion: PARENT.apiVersion,
        kind: PARENT.kind,
        name: 'one',
        uid: parent.metadata.uid,
        controller: true,
        blockOwnerDeletion: true,
      },
    ]);
    expect(parentOf('one')?.metadata.finalizers).toEqual([FINALIZER]);
    expect(findStatusCondition(parentOf('one')?.status?.conditions, 'Ready')).toMatchObject({ status: 'True', reason: 'ConfigMapApplied' });
    await t.waitFor(() => server.list(EVENTS, NS).some((e) => e['reason'] === 'ConfigMapApplied'));

    server.patch(PARENT.gvr, NS, 'one', { spec: { message: 'bonjour' } });
    await t.waitFor(() => childOf('one')?.data?.['message'] === 'bonjour');
  });

  it('recreates a deleted ConfigMap', async () => {
    createParent('two', 'hi');
    await t.waitFor(() => childOf('two') !== undefined);
    server.delete(CONFIGMAPS, NS, 'two-{{singular}}');
    await t.waitFor(() => childOf('two')?.data?.['message'] === 'hi');
  });

  it('follows its parts through the collection watch: a labelled ConfigMap in, then relabelled out', async () => {
    createParent('three', 'hey');
    await t.waitFor(() => parentOf('three')?.status?.parts === 0);
    server.create(CONFIGMAPS, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'a', namespace: NS, labels: { [PART_OF_LABEL]: 'three' } },
    });
    await t.waitFor(() => parentOf('three')?.status?.parts === 1);
    expect(childOf('three')?.data?.['parts']).toBe('a');
    expect(routesOf(t.controller, { gvr: CONFIGMAPS, namespace: NS, name: 'a' })).toEqual([`${NS}/three`]);

    server.patch(CONFIGMAPS, NS, 'a', { metadata: { labels: { [PART_OF_LABEL]: 'someone-else' } } });
    await t.waitFor(() => parentOf('three')?.status?.parts === 0);
    expect(routesOf(t.controller, { gvr: CONFIGMAPS, namespace: NS, name: 'a' })).toEqual([]);
  });

  it('runs its clean-up on delete, removes the finalizer and lets the parent go', async () => {
    const parent = createParent('four', 'bye');
    await t.waitFor(() => parentOf('four')?.metadata.finalizers?.includes(FINALIZER) === true);
    await client.delete(PARENT.gvr, { namespace: NS, name: 'four' });
    await t.waitFor(() => parentOf('four') === undefined);
    const about = server.list(EVENTS, NS).filter((e) => (e['regarding'] as { uid?: string }).uid === parent.metadata.uid);
    expect(about.map((e) => e['reason'])).toContain('CleanedUp');
  });
});
