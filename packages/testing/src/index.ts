export * from './apiserver/index.js';
export * from './fakes/index.js';
export * from './kube/index.js';
