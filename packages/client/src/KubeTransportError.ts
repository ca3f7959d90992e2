// Defined in @protean/transport (every transport rejects with it); re-exported here so imports from @protean/client keep working.
export { KubeTransportError } from '@protean/transport';
