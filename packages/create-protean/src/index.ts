// The library surface of create-protean: generating a project from code
// (README "Programmatic use"). The CLI (`runCli`, `parseCliArgs`) and the
// template machinery (`templateFiles`, `renderTemplate`, `projectManifest`)
// are implementation; tests and the CLI import them from their modules.
export { type GeneratedProject, generateProject } from './generateProject.js';
export { InvalidOptionError } from './InvalidOptionError.js';
export { InvalidProjectNameError } from './InvalidProjectNameError.js';
export { type Layout, LAYOUTS } from './Layout.js';
export { PROTEAN_VERSIONS } from './proteanVersions.js';
export { type GenerateOptions, type ResolvedProject } from './resolveProject.js';
export { TargetNotEmptyError } from './TargetNotEmptyError.js';
export { UnknownLayoutError } from './UnknownLayoutError.js';
