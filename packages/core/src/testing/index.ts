// @protean/core/testing: one test double per core contract, and the small
// helpers every Protean test uses. Implementation packages test against
// these; @protean/testing re-exports them next to createTestController.
export { Deferred } from './Deferred.js';
export { type EnqueueCall, EnqueueRecorder } from './EnqueueRecorder.js';
export { FakeClock, flushMicrotasks } from './FakeClock.js';
export { FakeInformer } from './FakeInformer.js';
export { FakeInformerError } from './FakeInformerError.js';
export { FakeInformerSource, type FakeInformerSourceOptions } from './FakeInformerSource.js';
export { type FakeDeleteOptions, FakeListWatch, type FakeListWatchOptions } from './FakeListWatch.js';
export { FakeLeadership, type FakeTerm } from './FakeLeadership.js';
export { fakeObject, objectName, type ObjectSpec } from './fakeObject.js';
export { FakeRateLimiter, type FakeRateLimiterOptions } from './FakeRateLimiter.js';
export { FakeStatusError } from './FakeStatusError.js';
export { FreezableClock } from './FreezableClock.js';
export {
  FakeInstancePass,
  type FakeInstanceRef,
  FakeInstanceWatcher,
  FakeWatchCoordinator,
  type FakeWatchCoordinatorCall,
} from './FakeWatchCoordinator.js';
export { FakeWatchManager, type FakeWatchManagerOptions, type WatchManagerCall } from './FakeWatchManager.js';
export { type FakeWaitingItem, FakeWorkQueue, type FakeWorkQueueCall, type FakeWorkQueueOptions } from './FakeWorkQueue.js';
export { type HandlerCall, HandlerRecorder } from './HandlerRecorder.js';
export { type LogRecord, LogRecorder } from './LogRecorder.js';
export { NoopInstanceWatcher } from './NoopInstanceWatcher.js';
export { ObserverRecorder, type RecordedHandlerError, type RecordedReconcile } from './ObserverRecorder.js';
export { QueueMetricsRecorder } from './QueueMetricsRecorder.js';
export { Random } from './Random.js';
export { track, type TrackedPromise } from './track.js';
export { describeCondition } from './describeCondition.js';
export { waitFor, type WaitForOptions, WaitForTimeoutError, waitForTimeoutMs } from './waitFor.js';
export { noObjectCache } from './noObjectCache.js';
