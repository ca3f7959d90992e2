// Not copied into a project (templateFiles' NOT_COPIED): the stand-in that lets the workspace typecheck the
// `--webhooks` blocks of app.<layout>.ts. A project generated with --webhooks gets admission.webhooks.ts as src/admission.ts.
export * from './admission.webhooks.js';
