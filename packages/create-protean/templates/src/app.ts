// Not copied into a project (templateFiles' NOT_COPIED): the stand-in that lets the workspace typecheck
// main.ts and permissions.test.ts. A generated project's src/app.ts is app.<layout>.ts.
export * from './app.leader-election.js';
