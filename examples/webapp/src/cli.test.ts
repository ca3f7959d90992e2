import { describe, expect, it } from '@jest/globals';
import { parseCliArgs, USAGE, UsageError } from './cli.js';

describe('parseCliArgs', () => {
  it('runs the in-memory demo by default, on a free metrics port bound to loopback', () => {
    expect(parseCliArgs([], {})).toEqual({
      mode: 'demo',
      metricsPort: 0,
      metricsHost: '127.0.0.1',
      stepTimeoutMs: 10_000,
      verbose: false,
      trace: false,
      statusPage: true,
      hold: false,
    });
  });

  it('ignores the bare -- that pnpm passes through', () => {
    expect(parseCliArgs(['--', '--verbose'], {})).toMatchObject({ mode: 'demo', verbose: true });
  });

  it('runs against a cluster with --kubeconfig, serving metrics on 0.0.0.0:9464', () => {
    const expected = {
      mode: 'cluster',
      kubeconfig: '/k/config',
      metricsPort: 9464,
      metricsHost: '0.0.0.0',
      verbose: false,
      trace: false,
      statusPage: true,
    };
    expect(parseCliArgs(['--kubeconfig', '/k/config'], {})).toEqual(expected);
    expect(parseCliArgs(['--kubeconfig=/k/config'], {})).toEqual(expected);
  });

  it('runs against a cluster when KUBECONFIG is set, unless --in-memory says otherwise', () => {
    expect(parseCliArgs([], { KUBECONFIG: '/k/config' })).toMatchObject({ mode: 'cluster', kubeconfig: undefined });
    expect(parseCliArgs(['--in-memory'], { KUBECONFIG: '/k/config' })).toMatchObject({ mode: 'demo' });
    expect(parseCliArgs([], { KUBECONFIG: '' })).toMatchObject({ mode: 'demo' });
  });

  it('runs the controller against an in-memory API server with --serve, even when KUBECONFIG is set', () => {
    const expected = { mode: 'serve', metricsPort: 0, metricsHost: '127.0.0.1', verbose: false, trace: false, statusPage: true };
    expect(parseCliArgs(['--serve'], {})).toEqual(expected);
    expect(parseCliArgs(['--serve', '--in-memory'], { KUBECONFIG: '/k/config' })).toEqual(expected);
    expect(parseCliArgs(['--serve', '--metrics-port', '9100', '--verbose'], {})).toEqual({ ...expected, metricsPort: 9100, verbose: true });
  });

  it('reads --metrics-port, --metrics-host and --step-timeout-ms', () => {
    expect(parseCliArgs(['--metrics-port', '9100', '--metrics-host=0.0.0.0', '--step-timeout-ms', '2500'], {})).toEqual({
      mode: 'demo',
      metricsPort: 9100,
      metricsHost: '0.0.0.0',
      stepTimeoutMs: 2500,
      verbose: false,
      trace: false,
      statusPage: true,
      hold: false,
    });
  });

  it('records spans with --trace in every mode but --replicas', () => {
    expect(parseCliArgs(['--trace'], {})).toMatchObject({ mode: 'demo', trace: true });
    expect(parseCliArgs(['--serve', '--trace'], {})).toMatchObject({ mode: 'serve', trace: true });
    expect(parseCliArgs(['--kubeconfig', 'k', '--trace'], {})).toMatchObject({ mode: 'cluster', trace: true });
    expect(() => parseCliArgs(['--replicas', '3', '--trace'], {})).toThrow(
      new UsageError('--trace applies to one controller in this process; it excludes --replicas'),
    );
  });

  it('holds the scripted demo with --hold, and turns the status page off with --no-status-page in every mode that serves metrics', () => {
    expect(parseCliArgs(['--hold'], {})).toMatchObject({ mode: 'demo', hold: true, statusPage: true });
    expect(parseCliArgs(['--no-status-page'], {})).toMatchObject({ mode: 'demo', hold: false, statusPage: false });
    expect(parseCliArgs(['--serve', '--no-status-page'], {})).toMatchObject({ mode: 'serve', statusPage: false });
    expect(parseCliArgs(['--kubeconfig', 'k', '--no-status-page'], {})).toMatchObject({ mode: 'cluster', statusPage: false });
    expect(USAGE).toMatch(/^ {2}--hold +after the scripted scenario/m);
    expect(USAGE).toMatch(/^ {2}--no-status-page +do not serve the status page/m);
  });

  it('runs the sharding demo with --replicas N on an in-memory API server, even when KUBECONFIG is set', () => {
    const expected = { mode: 'replicas', replicas: 3, stepTimeoutMs: 10_000, verbose: false };
    expect(parseCliArgs(['--replicas', '3'], {})).toEqual(expected);
    expect(parseCliArgs(['--', '--replicas=3'], { KUBECONFIG: '/k/config' })).toEqual(expected);
    expect(parseCliArgs(['--replicas', '2', '--in-memory', '--step-timeout-ms', '30000', '--verbose'], {})).toEqual({
      mode: 'replicas',
      replicas: 2,
      stepTimeoutMs: 30_000,
      verbose: true,
    });
    expect(parseCliArgs(['--replicas', '12'], {})).toMatchObject({ mode: 'replicas', replicas: 12 });
  });

  it('documents --replicas in the usage', () => {
    expect(USAGE).toMatch(/^ {2}--replicas N +sharding on an in-memory API server/m);
    expect(USAGE).toMatch(/^ {2}--replicas N +number of replicas of the sharding demo, 2 to 12/m);
  });

  it('answers --help and -h with the help command, whatever else is given', () => {
    expect(parseCliArgs(['--help'], {})).toEqual({ mode: 'help' });
    expect(parseCliArgs(['--verbose', '-h'], {})).toEqual({ mode: 'help' });
  });

  it.each([
    [['--bogus'], 'unknown option "--bogus"'],
    [['extra'], 'unknown argument "extra"'],
    [['--kubeconfig'], 'option --kubeconfig needs a value'],
    [['--kubeconfig', '--verbose'], 'option --kubeconfig needs a value'],
    [['--metrics-port', 'http'], 'option --metrics-port must be an integer from 0 to 65535, got "http"'],
    [['--metrics-port', '70000'], 'option --metrics-port must be an integer from 0 to 65535, got "70000"'],
    [['--step-timeout-ms', '0'], 'option --step-timeout-ms must be an integer from 1 to 600000, got "0"'],
    [['--verbose=yes'], 'option --verbose takes no value (got "--verbose=yes")'],
    [['--in-memory', '--kubeconfig', 'x'], '--in-memory and --kubeconfig exclude each other'],
    [['--kubeconfig', 'x', '--step-timeout-ms', '5'], '--step-timeout-ms applies to the in-memory scenario only'],
    [['--serve', '--kubeconfig', 'x'], '--serve runs against an in-memory API server; it excludes --kubeconfig'],
    [['--serve', '--step-timeout-ms', '5'], '--step-timeout-ms applies to the in-memory scenario only'],
    [['--replicas'], 'option --replicas needs a value'],
    [['--replicas', '1'], 'option --replicas must be an integer from 2 to 12, got "1"'],
    [['--replicas', '0'], 'option --replicas must be an integer from 2 to 12, got "0"'],
    [['--replicas', '13'], 'option --replicas must be an integer from 2 to 12, got "13"'],
    [['--replicas', 'three'], 'option --replicas must be an integer from 2 to 12, got "three"'],
    [['--replicas', '2.5'], 'option --replicas must be an integer from 2 to 12, got "2.5"'],
    [['--replicas', '3', '--kubeconfig', 'x'], '--replicas runs on an in-memory API server; it excludes --kubeconfig'],
    [['--replicas', '3', '--metrics-port', '9100'], '--replicas runs on an in-memory API server; it excludes --metrics-port'],
    [['--replicas', '3', '--serve'], '--replicas and --serve exclude each other'],
    [['--serve', '--hold'], '--hold applies to the scripted scenario; --serve runs until Ctrl-C anyway'],
    [['--kubeconfig', 'x', '--hold'], '--hold applies to the scripted scenario; a cluster run lasts until Ctrl-C anyway'],
    [['--replicas', '3', '--hold'], '--replicas serves no status page and ends on its own; it excludes --hold'],
    [['--replicas', '3', '--no-status-page'], '--replicas serves no status page and ends on its own; it excludes --no-status-page'],
    [['--hold=yes'], 'option --hold takes no value (got "--hold=yes")'],
  ])('rejects %j with a UsageError naming the argument', (argv, message) => {
    expect(() => parseCliArgs(argv, {})).toThrow(new UsageError(message));
  });
});
