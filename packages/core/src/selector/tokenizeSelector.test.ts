import { describe, expect, it } from '@jest/globals';
import { tokenizeSelector } from './tokenizeSelector.js';

const kinds = (text: string): string[] => tokenizeSelector(text).map((t) => `${t.kind}:${t.text}@${t.position}`);

describe('tokenizeSelector', () => {
  it('reads != and == as single tokens and records where each token starts', () => {
    expect(kinds('a!=b')).toEqual(['identifier:a@0', '!=:!=@1', 'identifier:b@3', 'end:@4']);
    expect(kinds('a == b')).toEqual(['identifier:a@0', '==:==@2', 'identifier:b@5', 'end:@6']);
  });

  it('splits a run of symbols greedily from the left', () => {
    expect(kinds('!==')).toEqual(['!=:!=@0', '=:=@2', 'end:@3']);
    expect(kinds('=!(')).toEqual(['=:=@0', '!:!@1', '(:(@2', 'end:@3']);
    expect(kinds('>=<')).toEqual(['>:>@0', '=:=@1', '<:<@2', 'end:@3']);
  });

  it('ends identifiers at symbols and at space, tab, CR and LF only', () => {
    expect(kinds('x in(a,b)')).toEqual([
      'identifier:x@0',
      'identifier:in@2',
      '(:(@4',
      'identifier:a@5',
      ',:,@6',
      'identifier:b@7',
      '):)@8',
      'end:@9',
    ]);
    expect(kinds(' \t\r\na\u00a0b\vc')).toEqual(['identifier:a\u00a0b\vc@4', 'end:@9']);
  });

  it('keeps a NUL character inside an identifier instead of ending the input', () => {
    expect(kinds('a\u0000b')).toEqual(['identifier:a\u0000b@0', 'end:@3']);
  });

  it('gives only an end token for empty or blank input', () => {
    expect(kinds('')).toEqual(['end:@0']);
    expect(kinds('  ')).toEqual(['end:@2']);
  });
});
