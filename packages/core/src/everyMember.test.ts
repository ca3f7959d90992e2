import { describe, expect, it } from '@jest/globals';
import { forwardEveryMember, type EveryMember } from './everyMember.js';

interface Contract {
  run(input: string): number;
  stop(): void;
  describe?(): string;
}

describe('forwardEveryMember', () => {
  it('keeps every given member and leaves out the optional ones given as undefined', () => {
    const calls: string[] = [];
    const wrapper = forwardEveryMember<Contract>({
      run: (input) => {
        calls.push(input);
        return input.length;
      },
      stop: () => calls.push('stop'),
      describe: undefined,
    });
    expect(wrapper.run('abc')).toBe(3);
    wrapper.stop();
    expect(calls).toEqual(['abc', 'stop']);
    expect('describe' in wrapper).toBe(false);
    expect(Object.keys(wrapper).sort()).toEqual(['run', 'stop']);
  });

  it('keeps an optional member given as a function', () => {
    const wrapper = forwardEveryMember<Contract>({ run: () => 0, stop: () => undefined, describe: () => 'inner' });
    expect(wrapper.describe?.()).toBe('inner');
  });

  it('does not type-check when a member, optional or not, is missing', () => {
    // @ts-expect-error: the optional `describe` must be named (a function or undefined)
    const withoutOptional: EveryMember<Contract> = { run: () => 0, stop: () => undefined };
    // @ts-expect-error: a required member cannot be undefined
    const requiredUndefined: EveryMember<Contract> = { run: undefined, stop: () => undefined, describe: undefined };
    expect([withoutOptional, requiredUndefined]).toHaveLength(2);
  });
});
