// The one error type of an API server's error status lives in @protean/core (every package that sends requests to
// the API server throws it); re-exported here so imports from @protean/client keep working.
export { KubeApiError } from '@protean/core';
