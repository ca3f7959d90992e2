// What the scale benchmark reads from Linux's /proc about other processes:
// resident memory, CPU time, and the TCP connections a process holds to a port.
import { readdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';

/** Clock ticks per second of /proc/<pid>/stat's utime and stime (USER_HZ, 100 on Linux/x64). */
const USER_HZ = 100;

/** A `kB` field of /proc/<pid>/status (VmRSS, VmHWM) in bytes, or undefined if the process is gone. */
export function statusBytes(pid, field) {
  let text;
  try {
    text = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return undefined;
  }
  const match = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(text);
  return match === null ? undefined : Number(match[1]) * 1024;
}

/** Resets the peak RSS (VmHWM) of `pid` to its current RSS; false if the kernel refused. */
export function resetPeakRss(pid) {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

/** User + system CPU milliseconds `pid` has used, or undefined if it is gone. */
export function cpuMsOf(pid) {
  let text;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // Fields after the command name (which may hold spaces) start at field 3 (state); utime and stime are 14 and 15.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / USER_HZ;
}

/** The pid of the process whose command line holds every one of `parts`, or undefined. */
export function findPid(parts) {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let cmdline;
    try {
      cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
    } catch {
      continue;
    }
    if (parts.every((p) => cmdline.some((arg) => arg === p || arg.endsWith(`/${p}`)))) return Number(entry);
  }
  return undefined;
}

/** Inodes of the sockets `pid` has open. */
function socketInodes(pid) {
  const inodes = new Set();
  let fds;
  try {
    fds = readdirSync(`/proc/${pid}/fd`);
  } catch {
    return inodes;
  }
  for (const fd of fds) {
    let target;
    try {
      target = readlinkSync(`/proc/${pid}/fd/${fd}`);
    } catch {
      continue; // closed since the listing
    }
    const match = /^socket:\[(\d+)\]$/.exec(target);
    if (match !== null) inodes.add(match[1]);
  }
  return inodes;
}

const TCP_STATES = { '01': 'established', '02': 'synSent', '06': 'timeWait', '08': 'closeWait', '04': 'finWait1', '05': 'finWait2' };

/**
 * The TCP connections `pid` holds to `port` (IPv4 and IPv6), by state:
 * `{ total, established, other }`. Joins the socket inodes of
 * /proc/<pid>/fd with /proc/<pid>/net/tcp{,6}.
 */
export function tcpConnectionsTo(pid, port) {
  const inodes = socketInodes(pid);
  const counts = { total: 0, established: 0, other: 0 };
  if (inodes.size === 0) return counts;
  const portHex = port.toString(16).toUpperCase().padStart(4, '0');
  for (const table of ['tcp', 'tcp6']) {
    let text;
    try {
      text = readFileSync(`/proc/${pid}/net/${table}`, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      if (cols.length < 10 || !inodes.has(cols[9])) continue;
      if (!cols[2].endsWith(`:${portHex}`)) continue;
      counts.total++;
      if ((TCP_STATES[cols[3]] ?? 'other') === 'established') counts.established++;
      else counts.other++;
    }
  }
  return counts;
}
