import { afterEach, describe, expect, it } from '@jest/globals';
import { TOKENS, type GroupVersionResource, type InformerSource, type ListWatch } from '@protean/core';
import { FakeInformerSource, HandlerRecorder } from '@protean/core/testing';
import { createTestController, type TestController, type TestControllerOptions } from './createTestController.js';

const webapps: GroupVersionResource = { group: 'demo.protean.dev', version: 'v1', resource: 'webapps' };

/** True when A and B are the same type (not merely assignable). */
type Equals<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
/** Fails to compile unless `T` is `true`: the assertions below are checked by `tsc -b`. */
function assertType<T extends true>(): T | undefined {
  return undefined;
}

/** A source that is not a fake: informers from a FakeInformerSource it hides, counted. */
class CountingSource implements InformerSource {
  readonly behind = new FakeInformerSource();
  created = 0;
  createListWatch(gvr: GroupVersionResource): ListWatch {
    this.created++;
    return this.behind.createListWatch(gvr);
  }
}

/** A FakeInformerSource with a member of its own. */
class SeededSource extends FakeInformerSource {
  seed(name: string): this {
    this.add(webapps, { name, namespace: 'prod' });
    return this;
  }
}

describe("createTestController's type follows its source", () => {
  const made: TestController<InformerSource>[] = [];
  afterEach(async () => {
    for (const t of made.splice(0)) await t.dispose();
  });

  it('is a FakeInformerSource, with its members, when no source is given', async () => {
    const t = createTestController();
    made.push(t);
    assertType<Equals<typeof t, TestController<FakeInformerSource>>>();
    assertType<Equals<TestController, TestController<FakeInformerSource>>>();
    t.source.add(webapps, { name: 'shop', namespace: 'prod' });
    const h = new HandlerRecorder();
    await t.start();
    await t.register(webapps, h.handler);
    await t.waitFor(() => h.count() === 1);
    expect(t.source.informers(webapps)).toHaveLength(1);
  });

  it('is the given source, without the fake members, when it is another InformerSource', async () => {
    const source = new CountingSource();
    const t = createTestController({ source });
    made.push(t);
    assertType<Equals<typeof t, TestController<CountingSource>>>();
    // @ts-expect-error -- a source that is not a FakeInformerSource has no add(); objects go through the source's own API.
    expect(typeof t.source.add).toBe('undefined');
    source.behind.add(webapps, { name: 'shop', namespace: 'prod' });
    const h = new HandlerRecorder();
    await t.start();
    await t.register(webapps, h.handler);
    await t.waitFor(() => h.count() === 1);
    expect(t.source).toBe(source);
    expect(t.container.get(TOKENS.informerSource)).toBe(source);
    expect(t.source.created).toBe(1);
  });

  it('keeps a FakeInformerSource subclass, with its own members', async () => {
    const t = createTestController({ source: new SeededSource().seed('shop') });
    made.push(t);
    assertType<Equals<typeof t, TestController<SeededSource>>>();
    const h = new HandlerRecorder();
    await t.start();
    await t.register(webapps, h.handler);
    t.source.seed('blog');
    await t.waitFor(() => h.count() === 2);
    expect(h.calls.map((c) => c.req.name).sort()).toEqual(['blog', 'shop']);
  });

  it("is the option's source or a fake when options are passed on with the source optional", () => {
    function withDefaults<S extends InformerSource>(options: TestControllerOptions<S>): TestController<S | FakeInformerSource> {
      return createTestController({ logFailures: false, ...options });
    }
    const fake = withDefaults({});
    const counting = withDefaults({ source: new CountingSource() });
    made.push(fake, counting);
    assertType<Equals<typeof counting.source, CountingSource | FakeInformerSource>>();
    expect(fake.source).toBeInstanceOf(FakeInformerSource);
    expect(counting.source).toBeInstanceOf(CountingSource);
  });
});
