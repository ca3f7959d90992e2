// The example of packages/testing/README.md, kept runnable (imports are relative here).
import { afterEach, expect, it } from '@jest/globals';
import { requeue, type Handler } from '@protean/core';
import { createTestController, FakeClock, FakeStatusError, type FakeInformerSource, type TestController } from '@protean/testing';

const webapps = { group: 'demo.protean.dev', version: 'v1', resource: 'webapps' };

// The handler under test: marks ready webapps done, polls the others every second.
function makeReconcile(cluster: FakeInformerSource, done: string[]): Handler {
  return async (req) => {
    const app = cluster.get(webapps, req);
    if (app === undefined) throw new FakeStatusError(404); // deleted: NotFound counts as done
    if (app.metadata.labels?.['ready'] !== 'true') throw requeue.neededAfter(null, 1_000);
    done.push(`${req.namespace}/${req.name}`);
  };
}

let t: TestController;
afterEach(() => t.dispose());

it('reconciles a ready webapp at once and polls one that is not ready yet', async () => {
  const clock = new FakeClock();
  t = createTestController({ clock });
  t.source.add(webapps, { name: 'blog', namespace: 'prod' }); // listed first, so polled before shop is done
  t.source.add(webapps, { name: 'shop', namespace: 'prod', labels: { ready: 'true' } });
  const done: string[] = [];

  await t.start();
  await t.register(webapps, makeReconcile(t.source, done));
  await t.waitFor(() => done.length === 1);
  expect(done).toEqual(['prod/shop']);

  // A label change keeps the generation: the controller skips the event...
  t.source.update(webapps, { name: 'blog', namespace: 'prod', labels: { ready: 'true' } });
  // ...and the blog is picked up by its one-second poll.
  await clock.advanceAsync(1_000);
  await t.waitFor(() => done.length === 2);
  expect(done).toEqual(['prod/shop', 'prod/blog']);
});
