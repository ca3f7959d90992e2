import { observedPermissionsSuite } from './observedPermissionsSuite.js';

observedPermissionsSuite('leader-election');
