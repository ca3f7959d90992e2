import { jestRealConfig } from '../../jest.preset.js';

export default jestRealConfig({ displayName: '@protean/integration-tests (real kube-apiserver)' });
