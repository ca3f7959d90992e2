// One replica of a small leader-elected controller, run as a child process
// by failover.real.test.ts (from dist/, after `tsc -b`). It composes the
// DynamicController as an application does, with leaderElectionModule and
// client-go's default timings, reconciles the ConfigMaps of one namespace
// (each pass takes 50 ms and asks to run again 300 ms later, so the leader
// is always busy), and logs pino JSON lines on stdout: the controller's and
// the elector's transitions, and `pass-start`/`pass-end` per pass for the
// test's audit. SIGTERM stops it gracefully.
import 'reflect-metadata';
import { KubeConfig } from '@kubernetes/client-node';
import { coordinatorModule } from '@protean/coordinator';
import { coreModule, createLogger, DynamicController, requeue, type GroupVersionResource, type Handler } from '@protean/core';
import { leaderElectionModule } from '@protean/leader-election';
import { queueModule } from '@protean/queue';
import { watchManagerModule } from '@protean/watch-manager';
import { Container } from 'inversify';

const CONFIGMAPS: GroupVersionResource = { group: '', version: 'v1', resource: 'configmaps' };

function required(name: string): string {
  const value = process.env[name];
  if (value === undefined || value === '') throw new Error(`leaderReplica: environment variable ${name} is required`);
  return value;
}

async function main(): Promise<void> {
  const identity = required('REPLICA_IDENTITY');
  const namespace = required('REPLICA_NAMESPACE');
  const leaseName = required('REPLICA_LEASE');
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromFile(required('PROTEAN_KUBECONFIG'));
  const logger = createLogger({ level: 'info', base: { replica: identity } });

  const container = new Container();
  container.load(
    coreModule(
      {
        workers: 2,
        resyncPeriodMs: 0,
        minRetryDelayMs: 20,
        maxRetryDelayMs: 1_000,
        rateLimit: 1_000,
        burstLimit: 1_000,
        queueShutdownTimeoutMs: 10_000,
      },
      logger,
    ),
    queueModule(),
    watchManagerModule({ kubeConfig, backoff: { initialMs: 100, maxMs: 1_000 } }),
    coordinatorModule(),
    leaderElectionModule({ kubeConfig, namespace, leaseName, identity }),
  );
  const controller = container.get(DynamicController);
  const abort = new AbortController();
  process.once('SIGTERM', () => {
    logger.info('SIGTERM received; stopping');
    abort.abort(new Error('SIGTERM'));
  });
  const running = controller.start(abort.signal);

  const handler: Handler = async (req, ctx) => {
    if (req.namespace !== namespace) return;
    const instance = `${req.namespace}/${req.name}`;
    logger.info({ audit: 'pass-start', instance, at: Date.now() }, 'pass-start');
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, 50);
      ctx.signal.addEventListener(
        'abort',
        () => {
          clearTimeout(timer);
          resolve();
        },
        { once: true },
      );
    });
    logger.info({ audit: 'pass-end', instance, at: Date.now() }, 'pass-end');
    if (!ctx.signal.aborted) throw requeue.neededAfter(new Error('reconcile again'), 300);
  };
  await controller.register(CONFIGMAPS, handler);
  logger.info('replica registered its parents');
  await running;
  logger.info('replica stopped');
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
