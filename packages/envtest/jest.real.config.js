import { jestRealConfig } from '../../jest.preset.js';

export default jestRealConfig({ displayName: '@protean/envtest (real kube-apiserver)' });
