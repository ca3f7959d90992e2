import { leastPrivilegeSuite } from './leastPrivilegeSuite.js';

leastPrivilegeSuite('sharding');
