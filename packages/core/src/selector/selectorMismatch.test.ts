import { describe, expect, it } from '@jest/globals';
import { Everything } from './Everything.js';
import { Nothing } from './Nothing.js';
import { parseSelector } from './parseSelector.js';
import { selectorMismatch } from './selectorMismatch.js';

describe('selectorMismatch', () => {
  it('is undefined when the labels match', () => {
    expect(selectorMismatch(parseSelector('app=shop,tier notin (db)'), { app: 'shop', tier: 'web' })).toBeUndefined();
    expect(selectorMismatch(Everything, {})).toBeUndefined();
  });

  it.each([
    ['app=shop', { app: 'blog' }, 'label app is "blog", selector wants app=shop'],
    ['app=shop', {}, 'label app is missing, selector wants app=shop'],
    ['app!=shop', { app: 'shop' }, 'label app is "shop", selector wants app!=shop'],
    ['app in (shop,web)', { app: 'blog' }, 'label app is "blog", selector wants app in (shop,web)'],
    ['app in (shop,web)', {}, 'label app is missing, selector wants app in (shop,web)'],
    ['app notin (shop,web)', { app: 'web' }, 'label app is "web", selector wants app notin (shop,web)'],
    ['tier', { app: 'shop' }, 'label tier is missing, selector wants tier (label present)'],
    ['!legacy', { legacy: 'yes' }, 'label legacy is "yes", selector wants !legacy (label absent)'],
  ])('explains %s failing on %j', (text, labels, reason) => {
    const mismatch = selectorMismatch(parseSelector(text), labels);
    expect(mismatch?.reason).toBe(reason);
    expect(mismatch?.requirement).toEqual(parseSelector(text).requirements()[0]);
  });

  it('names the first failing requirement in canonical order', () => {
    const mismatch = selectorMismatch(parseSelector('zone=a,app=shop,tier=web'), { app: 'shop', tier: 'db', zone: 'b' });
    expect(mismatch?.requirement?.key).toBe('tier');
    expect(mismatch?.reason).toBe('label tier is "db", selector wants tier=web');
  });

  it('says a null selector matches nothing', () => {
    expect(selectorMismatch(Nothing, { app: 'shop' })).toEqual({
      requirement: undefined,
      reason: 'selector matches nothing (a null label selector)',
    });
  });

  it('does not find a label key on Object.prototype', () => {
    expect(selectorMismatch(parseSelector('constructor'), {})?.reason).toBe(
      'label constructor is missing, selector wants constructor (label present)',
    );
  });
});
