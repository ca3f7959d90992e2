import { defineConformanceSuite } from './defineConformanceSuite.js';
import { kubeApiServerTarget } from './kubeApiServerTarget.js';

defineConformanceSuite(kubeApiServerTarget);
