import { isJsonObject } from './mergePatch.js';

/** A JSON patch (RFC 6902) that cannot be applied; the server answers 422 / 400 with its message. */
export class JsonPatchError extends Error {
  override readonly name = 'JsonPatchError';
}

interface Operation {
  op: string;
  path: string;
  from?: string;
  value?: unknown;
}

function parsePointer(pointer: string): string[] {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) throw new JsonPatchError(`invalid JSON pointer ${JSON.stringify(pointer)}`);
  return pointer
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function parentOf(doc: unknown, tokens: string[], pointer: string): { parent: unknown; last: string } {
  let cur = doc;
  for (const t of tokens.slice(0, -1)) {
    if (Array.isArray(cur)) cur = cur[Number(t)];
    else if (isJsonObject(cur)) cur = cur[t];
    else cur = undefined;
    if (cur === undefined) throw new JsonPatchError(`path ${JSON.stringify(pointer)} does not exist`);
  }
  return { parent: cur, last: tokens[tokens.length - 1] ?? '' };
}

function getAt(doc: unknown, pointer: string): unknown {
  const tokens = parsePointer(pointer);
  if (tokens.length === 0) return doc;
  const { parent, last } = parentOf(doc, tokens, pointer);
  const v = Array.isArray(parent) ? parent[Number(last)] : isJsonObject(parent) ? parent[last] : undefined;
  if (v === undefined) throw new JsonPatchError(`path ${JSON.stringify(pointer)} does not exist`);
  return v;
}

function arrayIndex(arr: unknown[], last: string, pointer: string, forInsert: boolean): number {
  if (forInsert && last === '-') return arr.length;
  const i = Number(last);
  const max = forInsert ? arr.length : arr.length - 1;
  if (!/^(0|[1-9][0-9]*)$/.test(last) || i > max) {
    throw new JsonPatchError(`array index ${JSON.stringify(last)} out of range at ${JSON.stringify(pointer)}`);
  }
  return i;
}

function add(doc: unknown, pointer: string, value: unknown): unknown {
  const tokens = parsePointer(pointer);
  if (tokens.length === 0) return value;
  const { parent, last } = parentOf(doc, tokens, pointer);
  if (Array.isArray(parent)) parent.splice(arrayIndex(parent, last, pointer, true), 0, value);
  else if (isJsonObject(parent)) parent[last] = value;
  else throw new JsonPatchError(`path ${JSON.stringify(pointer)} does not exist`);
  return doc;
}

function remove(doc: unknown, pointer: string): unknown {
  const tokens = parsePointer(pointer);
  if (tokens.length === 0) throw new JsonPatchError('cannot remove the whole document');
  const { parent, last } = parentOf(doc, tokens, pointer);
  if (Array.isArray(parent)) parent.splice(arrayIndex(parent, last, pointer, false), 1);
  else if (isJsonObject(parent) && last in parent) delete parent[last];
  else throw new JsonPatchError(`path ${JSON.stringify(pointer)} does not exist`);
  return doc;
}

function jsonEqual(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/**
 * Applies a JSON patch (RFC 6902) to a copy of `target`. Throws
 * {@link JsonPatchError} naming the failing operation.
 */
export function jsonPatch(target: unknown, ops: unknown): unknown {
  if (!Array.isArray(ops)) throw new JsonPatchError('a JSON patch must be an array of operations');
  let doc: unknown = structuredClone(target);
  for (const raw of ops as unknown[]) {
    if (!isJsonObject(raw) || typeof raw['op'] !== 'string' || typeof raw['path'] !== 'string') {
      throw new JsonPatchError(`invalid JSON patch operation ${JSON.stringify(raw)}`);
    }
    const op = raw as unknown as Operation;
    const from = typeof op.from === 'string' ? op.from : '';
    switch (op.op) {
      case 'add':
        doc = add(doc, op.path, structuredClone(op.value));
        break;
      case 'remove':
        doc = remove(doc, op.path);
        break;
      case 'replace':
        getAt(doc, op.path);
        doc = op.path === '' ? structuredClone(op.value) : add(remove(doc, op.path), op.path, structuredClone(op.value));
        break;
      case 'move': {
        const v = getAt(doc, from);
        doc = add(remove(doc, from), op.path, v);
        break;
      }
      case 'copy':
        doc = add(doc, op.path, structuredClone(getAt(doc, from)));
        break;
      case 'test':
        if (!jsonEqual(getAt(doc, op.path), op.value)) {
          throw new JsonPatchError(`testing value ${op.path} failed`);
        }
        break;
      default:
        throw new JsonPatchError(`unknown JSON patch operation ${JSON.stringify(op.op)}`);
    }
  }
  return doc;
}
