// deploy/crd.yaml is what src/kind.ts declares: a field added to one and not the other fails here.
import { readFileSync } from 'node:fs';
import { expect, it } from '@jest/globals';
import { crdDrift } from '@protean/kinds';
import { PARENT_KIND } from './kind.js';
import { PARENT } from './names.js';

it('deploy/crd.yaml is the CRD of the kind src/kind.ts declares (after a change: npm run crd)', () => {
  const committed = readFileSync(new URL('../deploy/crd.yaml', import.meta.url), 'utf8');
  expect(crdDrift([PARENT_KIND], committed).differences).toEqual([]);
  expect(PARENT_KIND.gvr()).toEqual(PARENT.gvr);
});
