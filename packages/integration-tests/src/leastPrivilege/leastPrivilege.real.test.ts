import { leastPrivilegeSuite } from './leastPrivilegeSuite.js';

leastPrivilegeSuite('leader-election');
