import { describe, expect, it } from '@jest/globals';
import { FakeStatusError } from '@protean/core/testing';
import { describeFailedPass, firstStackFrame } from './describeFailedPass.js';
import type { FailedPass } from './FailedPass.js';

const THIS_FILE = /describeFailedPass\.test\.ts:\d+:\d+\)?$/;

class OwnError extends FakeStatusError {}

function throwingHere(): never {
  throw new OwnError(500);
}

describe('firstStackFrame', () => {
  it('is the frame that threw, skipping the constructors of the error class and its bases', () => {
    const err = (() => {
      try {
        throwingHere();
      } catch (e) {
        return e;
      }
    })();
    const frame = firstStackFrame(err);
    expect(frame).toMatch(/^at throwingHere \(/);
    expect(frame).toMatch(THIS_FILE);
  });

  it('skips node_modules and Node internals, and falls back to the first frame when nothing else is left', () => {
    const err = new Error('x');
    err.stack = [
      'Error: x',
      '    at new Error (node:internal/errors:1:1)',
      '    at parse (/app/node_modules/yaml/dist/index.js:3:4)',
      '    at reconcile (/app/src/shop.ts:12:5)',
    ].join('\n');
    expect(firstStackFrame(err)).toBe('at reconcile (/app/src/shop.ts:12:5)');
    err.stack = 'Error: x\n    at parse (/app/node_modules/yaml/dist/index.js:3:4)';
    expect(firstStackFrame(err)).toBe('at parse (/app/node_modules/yaml/dist/index.js:3:4)');
  });

  it('is unset for a value that is not an Error or has no stack', () => {
    expect(firstStackFrame('boom')).toBeUndefined();
    const err = new Error('x');
    delete err.stack;
    expect(firstStackFrame(err)).toBeUndefined();
  });
});

describe('describeFailedPass', () => {
  const pass: FailedPass = {
    seq: 1,
    parent: 'demo.protean.dev/v1/webapps',
    instance: 'prod/shop',
    inFlight: ['prod/shop'],
    error: new Error('boom'),
    summary: 'Error: boom',
    frame: 'at handler (/app/src/shop.ts:3:9)',
    failures: 2,
    dropped: false,
  };

  it('reads parent, instance, count, fate and error on one line, the frame on the next', () => {
    expect(describeFailedPass(pass)).toBe(
      'demo.protean.dev/v1/webapps prod/shop (failure 2 in a row; retried with backoff): Error: boom\n    at handler (/app/src/shop.ts:3:9)',
    );
  });

  it('lists the passes in flight when the instance is not known, and leaves out what the status did not tell', () => {
    const { instance: _i, failures: _f, dropped: _d, frame: _fr, ...unknown } = pass;
    expect(describeFailedPass({ ...unknown, inFlight: ['prod/a', 'prod/b'] })).toBe(
      'demo.protean.dev/v1/webapps one of prod/a, prod/b: Error: boom',
    );
  });
});
