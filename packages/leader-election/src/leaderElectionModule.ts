import { silentLogger, TOKENS } from '@protean/core';
import type { ContainerModule } from 'inversify';
import { containerModule } from '@protean/core/internal';
import { defaultIdentity } from './defaultIdentity.js';
import { LeaderElector } from './LeaderElector.js';
import { resolveLeaderElectorOptions, type LeaderElectorOptions } from './LeaderElectorOptions.js';

/**
 * Binds `TOKENS.leadership` to one {@link LeaderElector} (singleton), so the
 * container's DynamicController runs its workers only while it leads. The
 * elector logs through `TOKENS.logger` and times through `TOKENS.clock`
 * unless `options` give their own. The options are validated here, so a bad
 * lease name fails when the module is built, not at the first election.
 */
export function leaderElectionModule(options: LeaderElectorOptions): ContainerModule {
  const settled: LeaderElectorOptions = { ...options, identity: options?.identity ?? defaultIdentity() };
  resolveLeaderElectorOptions({ ...settled, logger: silentLogger() });
  return containerModule((bindOptions) => {
    bindOptions
      .bind(TOKENS.leadership)
      .toDynamicValue((ctx) => {
        const logger = settled.logger ?? ctx.get(TOKENS.logger, { optional: true });
        const clock = settled.clock ?? ctx.get(TOKENS.clock, { optional: true });
        return new LeaderElector({ ...settled, ...(logger === undefined ? {} : { logger }), ...(clock === undefined ? {} : { clock }) });
      })
      .inSingletonScope();
  });
}
