import { TOKENS } from '@protean/core';
import type { ContainerModule } from 'inversify';
import { containerModule, markChecked } from '@protean/core/internal';
import { defaultIdentity } from './defaultIdentity.js';
import { LeaderElector } from './LeaderElector.js';
import { checkLeaderElectorOptions, type LeaderElectorOptions } from './LeaderElectorOptions.js';

/**
 * Binds `TOKENS.leadership` to one {@link LeaderElector} (singleton), so the
 * container's DynamicController runs its workers only while it leads. The
 * elector logs through `TOKENS.logger` and times through `TOKENS.clock`
 * unless `options` give their own. The options are checked here, where they
 * enter, so a bad lease name fails when the module is built, not at the
 * first election; the elector built from them checks nothing again.
 */
export function leaderElectionModule(options: LeaderElectorOptions): ContainerModule {
  // A copy no one else holds, so what is checked stays what the elector gets.
  const settled: LeaderElectorOptions = Object.freeze({ ...options, identity: options?.identity ?? defaultIdentity() });
  checkLeaderElectorOptions(settled);
  return containerModule((bindOptions) => {
    bindOptions
      .bind(TOKENS.leadership)
      .toDynamicValue((ctx) => {
        const logger = settled.logger ?? ctx.get(TOKENS.logger, { optional: true });
        const clock = settled.clock ?? ctx.get(TOKENS.clock, { optional: true });
        // No check covers the logger and clock, so with the container's these are still the options checked above.
        const checked = markChecked(
          Object.freeze({ ...settled, ...(logger === undefined ? {} : { logger }), ...(clock === undefined ? {} : { clock }) }),
        );
        return new LeaderElector(checked);
      })
      .inSingletonScope();
  });
}
