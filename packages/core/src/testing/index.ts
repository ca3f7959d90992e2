// @protean/core/testing: one test double per core contract, and the small
// helpers every Protean test uses. Implementation packages test against
// these; @protean/testing re-exports them next to createTestController.
export * from './Deferred.js';
export * from './EnqueueRecorder.js';
export * from './FakeClock.js';
export * from './FakeInformer.js';
export * from './FakeInformerError.js';
export * from './FakeInformerSource.js';
export * from './FakeLeadership.js';
export * from './fakeObject.js';
export * from './FakeRateLimiter.js';
export * from './FakeStatusError.js';
export * from './FreezableClock.js';
export * from './FakeWatchCoordinator.js';
export * from './FakeWatchManager.js';
export * from './FakeWorkQueue.js';
export * from './HandlerRecorder.js';
export * from './LogRecorder.js';
export * from './NoopInstanceWatcher.js';
export * from './ObserverRecorder.js';
export * from './QueueMetricsRecorder.js';
export * from './Random.js';
export * from './track.js';
export * from './describeCondition.js';
export * from './waitFor.js';
