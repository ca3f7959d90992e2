import { observedPermissionsSuite } from './observedPermissionsSuite.js';

observedPermissionsSuite('sharding');
