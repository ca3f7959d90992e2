/** Error of a second `run` of a `KubernetesListWatch`, or of a request it attempts after it stopped. */
export class ListWatchStateError extends Error {
  override readonly name = 'ListWatchStateError';
}
