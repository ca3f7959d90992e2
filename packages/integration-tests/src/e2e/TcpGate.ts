import * as net from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';

/**
 * A loopback TCP relay in front of an API server that a test can close
 * and open again: while closed it drops every open connection and resets
 * new ones at once. Clients that go through it (see {@link kubeConfigThrough})
 * lose the server while everyone else keeps it, so writes made meanwhile
 * are events those clients never see.
 *
 * TLS passes through untouched: the server's certificate names 127.0.0.1,
 * which is also where the gate listens.
 */
export class TcpGate {
  private readonly sockets = new Set<net.Socket>();
  private closed = false;

  private constructor(
    private readonly server: net.Server,
    /** The loopback port the gate listens on. */
    readonly port: number,
  ) {}

  /** Starts a gate relaying to the host and port of `targetUrl`. */
  static async start(targetUrl: string): Promise<TcpGate> {
    const target = new URL(targetUrl);
    const targetPort = Number(target.port);
    const server = net.createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    const gate = new TcpGate(server, (server.address() as net.AddressInfo).port);
    server.on('connection', (client) => gate.accept(client, target.hostname, targetPort));
    return gate;
  }

  /** Drops every open connection; new ones are reset until {@link open}. */
  close(): void {
    this.closed = true;
    for (const s of this.sockets) s.destroy();
    this.sockets.clear();
  }

  open(): void {
    this.closed = false;
  }

  /** A copy of `kubeConfig` whose current cluster is reached through the gate. */
  kubeConfigThrough(kubeConfig: KubeConfig): KubeConfig {
    const current = kubeConfig.getCurrentCluster();
    if (current === null) throw new Error('TcpGate.kubeConfigThrough: the KubeConfig has no current cluster');
    const copy = new KubeConfig();
    copy.loadFromOptions({
      clusters: kubeConfig.clusters.map((c) => (c.name === current.name ? { ...c, server: `https://127.0.0.1:${this.port}` } : c)),
      users: kubeConfig.users,
      contexts: kubeConfig.contexts,
      currentContext: kubeConfig.getCurrentContext(),
    });
    return copy;
  }

  /** Closes the gate and stops listening. */
  async stop(): Promise<void> {
    this.close();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(client: net.Socket, host: string, port: number): void {
    if (this.closed) {
      client.resetAndDestroy();
      return;
    }
    const upstream = net.connect(port, host);
    this.sockets.add(client);
    this.sockets.add(upstream);
    const drop = (): void => {
      client.destroy();
      upstream.destroy();
      this.sockets.delete(client);
      this.sockets.delete(upstream);
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    client.pipe(upstream);
    upstream.pipe(client);
  }
}
