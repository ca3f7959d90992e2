import { hostname } from 'node:os';

/**
 * What the controller reads from its environment: deploy/deployment.yaml sets it in a Pod. Outside one
 * (no `KUBERNETES_SERVICE_HOST`: `npm run dev` on your machine) the namespace defaults to `default` and
 * the identity to the host name.
 */
export interface Environment {
  /** The Pod's namespace (downward API `metadata.namespace`): where the leases live. */
  readonly podNamespace: string;
  /** The Pod's name (downward API `metadata.name`): the start of this replica's identity. */
  readonly podName: string;
  /** The port of /metrics, /healthz, /readyz and the status page /statusz (`METRICS_PORT`, default 8080; 0: any free port, logged). */
  readonly metricsPort: number;
  /** Where that port listens (`METRICS_HOST`): all interfaces in a Pod (the kubelet probes the Pod's IP), else 127.0.0.1. */
  readonly metricsHost: string;
  /** `RESYNC_PERIOD_MS`: how often every parent is reconciled again without a change; unset: the core default. */
  readonly resyncPeriodMs?: number;
}

/** The environment variable a value was missing from or wrong in. */
export class EnvironmentError extends Error {
  override readonly name = 'EnvironmentError';
  constructor(
    readonly variable: string,
    problem: string,
  ) {
    super(`environment variable ${variable} ${problem}`);
  }
}

/** Reads {@link Environment} from `env` (`process.env`); rejects a missing or malformed value by name. */
export function readEnvironment(env: Readonly<Record<string, string | undefined>>): Environment {
  const inPod = (env['KUBERNETES_SERVICE_HOST'] ?? '') !== '';
  const required = (variable: string, outsideAPod: string): string => {
    const value = env[variable];
    if (value !== undefined && value !== '') return value;
    if (!inPod) return outsideAPod;
    throw new EnvironmentError(variable, 'is not set (deploy/deployment.yaml sets it from the downward API)');
  };
  const port = Number(env['METRICS_PORT'] ?? '8080');
  if (!Number.isInteger(port) || port < 0 || port > 65_535)
    throw new EnvironmentError('METRICS_PORT', `must be a port number, got ${JSON.stringify(env['METRICS_PORT'])}`);
  const resync = env['RESYNC_PERIOD_MS'];
  const resyncPeriodMs = resync === undefined || resync === '' ? undefined : Number(resync);
  if (resyncPeriodMs !== undefined && (!Number.isInteger(resyncPeriodMs) || resyncPeriodMs < 0))
    throw new EnvironmentError('RESYNC_PERIOD_MS', `must be a whole number of milliseconds, got ${JSON.stringify(resync)}`);
  return {
    podNamespace: required('POD_NAMESPACE', 'default'),
    podName: required('POD_NAME', hostname()),
    metricsPort: port,
    metricsHost: env['METRICS_HOST'] ?? (inPod ? '0.0.0.0' : '127.0.0.1'),
    ...(resyncPeriodMs === undefined ? {} : { resyncPeriodMs }),
  };
}
