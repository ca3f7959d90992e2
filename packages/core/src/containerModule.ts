import type { ContainerModule, ContainerModuleLoadOptions } from 'inversify';

/**
 * Ids of the modules built here count down from -1: Inversify numbers its
 * own `ContainerModule`s from 0 upwards, so the two never meet in one
 * container (an id tells `container.unload` which bindings to drop).
 */
let nextId = -1;

/**
 * A container module for Inversify without loading Inversify: the container
 * reads a module as its `id` and its `load(options)` only, so a process that
 * builds its controller without a container (`DynamicController.create`)
 * never loads Inversify (about 20 MiB of RSS), and nothing here needs
 * `require` of an ES module (which Jest on Node 20 refuses).
 */
export function containerModule(load: (options: ContainerModuleLoadOptions) => void): ContainerModule {
  const module = { id: nextId--, load: (options: ContainerModuleLoadOptions): void => load(options) };
  return module as unknown as ContainerModule;
}
