import * as net from 'node:net';

/**
 * A loopback TCP relay in front of an API server whose open connections can
 * go silent: {@link blackhole} keeps them open but forwards nothing more
 * on them, either way (a half-open network path, as after a NAT or load
 * balancer forgot the flow); connections made afterwards relay normally.
 * TLS passes through untouched (the server's certificate names 127.0.0.1).
 */
export class SilentRelay {
  private readonly flows = new Set<{ silent: boolean; sockets: net.Socket[] }>();

  private constructor(
    private readonly server: net.Server,
    /** The loopback port the relay listens on. */
    readonly port: number,
  ) {}

  static async start(targetUrl: string): Promise<SilentRelay> {
    const target = new URL(targetUrl);
    const server = net.createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    const relay = new SilentRelay(server, (server.address() as net.AddressInfo).port);
    server.on('connection', (client) => {
      const upstream = net.connect(Number(target.port), target.hostname);
      const flow = { silent: false, sockets: [client, upstream] };
      relay.flows.add(flow);
      for (const s of flow.sockets) s.on('error', () => undefined);
      client.on('data', (d: Buffer) => void (flow.silent || upstream.write(d)));
      upstream.on('data', (d: Buffer) => void (flow.silent || client.write(d)));
      const drop = (): void => {
        client.destroy();
        upstream.destroy();
        relay.flows.delete(flow);
      };
      client.on('close', drop);
      upstream.on('close', drop);
    });
    return relay;
  }

  /** The connections open now go silent; returns how many. */
  blackhole(): number {
    for (const f of this.flows) f.silent = true;
    return this.flows.size;
  }

  async stop(): Promise<void> {
    for (const f of this.flows) for (const s of f.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
