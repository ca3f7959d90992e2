import { readFileSync } from 'node:fs';
import { describe, expect, it } from '@jest/globals';
import { checkClientNodeRuntime, ClientNodeRuntimeError, installedClientNodeVersion } from './clientNodeRuntime.js';

describe('checkClientNodeRuntime', () => {
  it('refuses client-node 2.x on Node.js 20, naming both versions and both fixes', () => {
    let thrown: unknown;
    try {
      checkClientNodeRuntime('20.20.2', () => '2.0.1');
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(ClientNodeRuntimeError);
    const err = thrown as ClientNodeRuntimeError;
    expect(err.name).toBe('ClientNodeRuntimeError');
    expect(err.nodeVersion).toBe('20.20.2');
    expect(err.clientNodeVersion).toBe('2.0.1');
    expect(err.message).toBe(
      '@kubernetes/client-node 2.0.1 needs Node.js >= 22.19.0, but this is Node.js 20.20.2: upgrade Node.js to 22.19 or later, ' +
        'or install @kubernetes/client-node@1.4 (npm install @kubernetes/client-node@1.4), which runs on Node.js 20.19+',
    );
  });

  it('refuses client-node 2.x on Node.js 22 before 22.19, and on a later major', () => {
    expect(() => checkClientNodeRuntime('22.18.0', () => '2.0.1')).toThrow(ClientNodeRuntimeError);
    expect(() => checkClientNodeRuntime('v22.14.0', () => '3.0.0')).toThrow(ClientNodeRuntimeError);
  });

  it('accepts client-node 2.x on Node.js 22.19 and 24, and client-node 1.4 on Node.js 20', () => {
    expect(() => checkClientNodeRuntime('22.19.0', () => '2.0.1')).not.toThrow();
    expect(() => checkClientNodeRuntime('24.22.3', () => '2.0.1')).not.toThrow();
    expect(() => checkClientNodeRuntime('20.19.0', () => '1.4.0')).not.toThrow();
  });

  it('looks for the installed client-node only on a Node.js older than 22.19', () => {
    const asked: string[] = [];
    const installed = (node: string) => () => {
      asked.push(node);
      return '2.0.1';
    };
    checkClientNodeRuntime('22.19.0', installed('22.19.0'));
    checkClientNodeRuntime('24.22.3', installed('24.22.3'));
    expect(() => checkClientNodeRuntime('22.18.0', installed('22.18.0'))).toThrow(ClientNodeRuntimeError);
    expect(asked).toEqual(['22.18.0']);
  });

  it('lets an unknown client-node version pass', () => {
    expect(() => checkClientNodeRuntime('20.20.2', () => undefined)).not.toThrow();
  });
});

describe('installedClientNodeVersion', () => {
  it("reads the version of the client-node this package resolves: the workspace catalog's", () => {
    const catalog = readFileSync(new URL('../../../pnpm-workspace.yaml', import.meta.url), 'utf8');
    const pinned = /^\s*'@kubernetes\/client-node':\s*(\S+)\s*$/m.exec(catalog)?.[1];
    expect(pinned).toMatch(/^\d+\.\d+\.\d+$/);
    expect(installedClientNodeVersion()).toBe(pinned);
  });

  it('is undefined where client-node cannot be resolved', () => {
    expect(installedClientNodeVersion('file:///nonexistent/dir/index.js')).toBeUndefined();
  });
});
