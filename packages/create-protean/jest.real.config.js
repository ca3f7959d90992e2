import { jestRealConfig } from '../../jest.preset.js';

export default jestRealConfig({ displayName: 'create-protean (real kube-apiserver)' });
