import { jestRealConfig } from '../../jest.preset.js';

export default jestRealConfig({ displayName: '@protean/sharding (real kube-apiserver)' });
