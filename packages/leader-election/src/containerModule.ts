import { createRequire } from 'node:module';
import type * as Inversify from 'inversify';

let inversify: typeof Inversify | undefined;

/**
 * `new ContainerModule(load)`, with Inversify loaded at the first call rather
 * than when this package is imported: a process that builds its controller
 * without a container (`DynamicController.create`) never loads Inversify
 * (about 20 MiB of RSS). `require` of the ES module gives the same module
 * instance as `import 'inversify'`, so the module fits the caller's container.
 */
export function containerModule(load: (options: Inversify.ContainerModuleLoadOptions) => void): Inversify.ContainerModule {
  inversify ??= createRequire(import.meta.url)('inversify') as typeof Inversify;
  return new inversify.ContainerModule(load);
}
