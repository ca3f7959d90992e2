import { jestRealConfig } from '../../jest.preset.js';

export default jestRealConfig({ displayName: '@protean/kinds (real kube-apiserver)' });
