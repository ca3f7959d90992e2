import { jestRealConfig } from '../../jest.preset.js';

export default jestRealConfig({ displayName: '@protean/client (real kube-apiserver)' });
