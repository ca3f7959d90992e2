import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/**
 * The TCP connections this process holds, established, to `port` on any
 * host, counted by the operating system: the socket inodes among
 * `/proc/self/fd` matched against the entries of `/proc/net/tcp` and
 * `/proc/net/tcp6` with that remote port. Linux only.
 */
export function tcpConnectionsTo(port: number): number {
  const inodes = new Set<string>();
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/self/fd/${fd}`));
      if (m !== null) inodes.add(m[1]!);
    } catch {
      // The fd closed while we listed them.
    }
  }
  let count = 0;
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string;
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode
      const f = line.trim().split(/\s+/);
      if (f.length < 10) continue;
      const remotePort = Number.parseInt(f[2]!.split(':')[1] ?? '', 16);
      if (remotePort === port && f[3] === '01' && inodes.has(f[9]!)) count += 1;
    }
  }
  return count;
}
