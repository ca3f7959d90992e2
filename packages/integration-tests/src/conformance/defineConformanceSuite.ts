import { describe } from '@jest/globals';
import { applyTests } from './applyTests.js';
import { bookmarkTests } from './bookmarkTests.js';
import { clientNodeTests } from './clientNodeTests.js';
import type { ConformanceTarget } from './ConformanceTarget.js';
import { crudTests } from './crudTests.js';
import { discoveryTests } from './discoveryTests.js';
import { expiryTests } from './expiryTests.js';
import { leaseTests } from './leaseTests.js';
import { listTests } from './listTests.js';
import { namespaceTests } from './namespaceTests.js';
import { ownershipTests } from './ownershipTests.js';
import { schemaTests } from './schemaTests.js';
import { SuiteContext } from './SuiteContext.js';
import { watchListDisabledTests, watchListTests } from './watchListTests.js';
import { watchTests } from './watchTests.js';
import { webhookTests } from './webhookTests.js';
import { writeRulesTests } from './writeRulesTests.js';

/**
 * Defines the API conformance suite for one target: the same HTTP-level
 * tests (CRUD, resourceVersion and generation rules, status subresource,
 * selectors, pagination, metadata-only responses, watch replay, bookmarks,
 * timeouts, 410 Expired, discovery, CRDs, Status bodies, leases, server-side
 * apply and field ownership, YAML apply bodies, Secret stringData, finalizers, owner references (one controller,
 * merged by uid under apply, `applyOwned`'s refusal), events) run against the
 * in-memory server and a real kube-apiserver, so the fake cannot drift.
 *
 * Easy to get wrong: the three describe blocks each start their own server;
 * the first has the real server's watch cache off (compaction expires
 * watches at once), the second on (bookmarks come only from a watch cache),
 * the third has the WatchList feature (streaming lists) off.
 */
export function defineConformanceSuite(target: ConformanceTarget): void {
  describe(`API conformance: ${target.name}`, () => {
    const ctx = SuiteContext.install(target);
    crudTests(ctx);
    listTests(ctx);
    namespaceTests(ctx);
    watchTests(ctx);
    watchListTests(ctx);
    discoveryTests(ctx);
    clientNodeTests(ctx);
    leaseTests(ctx);
    applyTests(ctx);
    writeRulesTests(ctx);
    ownershipTests(ctx);
    schemaTests(ctx);
    webhookTests(ctx);
    // Last: compaction expires every resourceVersion issued so far.
    expiryTests(ctx);
  });

  describe(`API conformance: ${target.name} (watch cache)`, () => {
    const ctx = SuiteContext.install(target, { watchCache: true });
    bookmarkTests(ctx);
    watchListTests(ctx);
  });

  describe(`API conformance: ${target.name} (WatchList off)`, () => {
    const ctx = SuiteContext.install(target, { watchCache: true, watchList: false });
    watchListDisabledTests(ctx);
  });
}
