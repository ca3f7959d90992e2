import { defineConformanceSuite } from './defineConformanceSuite.js';
import { inMemoryTarget } from './inMemoryTarget.js';

defineConformanceSuite(inMemoryTarget);
