/**
 * Thrown by the fake informer and its source when a test drives them in a
 * way a real informer cannot behave (updating an object it never had,
 * marking a stopped informer synced); the message names the GVR and object.
 */
export class FakeInformerError extends Error {
  override readonly name = 'FakeInformerError';
}
