import { jestConfig } from '../../jest.preset.js';

// Only src/: the templates' own tests run inside generated projects (src/generatedProject.test.ts).
export default jestConfig({ displayName: 'create-protean' });
