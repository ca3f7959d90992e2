import { jestRealConfig } from '../../jest.preset.js';

export default jestRealConfig({ displayName: '@protean/testing (real kube-apiserver)' });
