import { canonicalRequirements } from './canonicalRequirements.js';
import { formatRequirement } from './formatRequirement.js';
import type { Requirement, Selector } from './Selector.js';

// How each requirement is checked; numbers so `matches` switches on a small
// integer instead of comparing operator strings.
const IN_ONE = 0;
const IN_SET = 1;
const NOT_IN_ONE = 2;
const NOT_IN_SET = 3;
const EXISTS = 4;
const DOES_NOT_EXIST = 5;

/** A requirement compiled for `matches`; every instance has the same shape. */
interface Check {
  readonly key: string;
  readonly kind: number;
  /** The value of a single-value requirement, else "". */
  readonly value: string;
  /** The values of a multi-value requirement, else an empty set. */
  readonly set: ReadonlySet<string>;
}

const NO_VALUES: ReadonlySet<string> = new Set();
const hasOwn = Object.hasOwn;

function compile(r: Requirement): Check {
  const single = r.values.length === 1;
  const value = single ? (r.values[0] as string) : '';
  const set = single || r.values.length === 0 ? NO_VALUES : new Set(r.values);
  switch (r.operator) {
    case 'In':
      return { key: r.key, kind: single ? IN_ONE : IN_SET, value, set };
    case 'NotIn':
      return { key: r.key, kind: single ? NOT_IN_ONE : NOT_IN_SET, value, set };
    case 'Exists':
      return { key: r.key, kind: EXISTS, value, set };
    case 'DoesNotExist':
      return { key: r.key, kind: DOES_NOT_EXIST, value, set };
  }
}

/**
 * The selector made of requirements (all ANDed); `Everything` is the one
 * without requirements. Everything `matches` needs is computed in the
 * constructor so matching allocates nothing.
 *
 * Easy to get wrong: the constructor trusts its input. Only `parseSelector`
 * and `selectorFromLabelSelector` build it, after validating, which is why
 * it is not exported from the package.
 */
export class RequirementsSelector implements Selector {
  readonly #requirements: readonly Requirement[];
  readonly #checks: readonly Check[];
  readonly #text: string;

  constructor(requirements: readonly Requirement[]) {
    this.#requirements = canonicalRequirements(requirements);
    this.#checks = Object.freeze(this.#requirements.map(compile));
    this.#text = this.#requirements.map(formatRequirement).join(',');
  }

  matches(labels: Readonly<Record<string, string>>): boolean {
    const checks = this.#checks;
    for (let i = 0; i < checks.length; i++) {
      const c = checks[i] as Check;
      // hasOwn, not `labels[key] !== undefined`: `constructor` or `toString`
      // are valid label keys and must not be found on Object.prototype.
      const present = hasOwn(labels, c.key);
      switch (c.kind) {
        case IN_ONE:
          if (!present || labels[c.key] !== c.value) return false;
          break;
        case IN_SET:
          if (!present || !c.set.has(labels[c.key] as string)) return false;
          break;
        case NOT_IN_ONE:
          // A missing key satisfies NotIn, as in Kubernetes.
          if (present && labels[c.key] === c.value) return false;
          break;
        case NOT_IN_SET:
          if (present && c.set.has(labels[c.key] as string)) return false;
          break;
        case EXISTS:
          if (!present) return false;
          break;
        default:
          if (present) return false;
      }
    }
    return true;
  }

  toString(): string {
    return this.#text;
  }

  empty(): boolean {
    return this.#checks.length === 0;
  }

  requirements(): readonly Requirement[] {
    return this.#requirements;
  }

  matchesNothing(): boolean {
    return false;
  }
}
