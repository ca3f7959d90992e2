import { jestRealConfig } from '../../jest.preset.js';

export default jestRealConfig({ displayName: '@protean/leader-election (real kube-apiserver)' });
