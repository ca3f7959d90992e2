import { jestConfig } from '../../jest.preset.js';

export default jestConfig({ displayName: '@protean/webhooks' });
