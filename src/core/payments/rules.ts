/**
 * The rule book: behaviour rules from the sandbox's start (`--scenario`, config) and per account
 * (installed through the control API). At creation the first matching rule picks the request's
 * outcome and its time; the state machine applies it on the first read once it is due.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { utf8ToBytes } from '@noble/hashes/utils.js';
import { putRulesBodySchema } from '../../schemas/control.js';
import { rulesSchema, type Rule } from '../../schemas/rules.js';
import { ApiError, type ErrorDetail } from '../errors/errors.js';
import { declareBody } from '../pipeline/route.js';
import { compileSchemaCheck } from '../pipeline/schema-check.js';
import type { ScheduledOutcome } from '../store/payment-request.js';

/** What a rule can look at: the request as created. */
export interface RuleSubject {
  id: string;
  accountId: string;
  amount: number;
  description: string;
  metadata?: Record<string, unknown>;
}

interface CompiledRule {
  rule: Rule;
  label: string;
  description?: RegExp;
}

/** The body of `PUT /sandbox/v1/rules`, as its route declares it. */
export const putRulesBody = declareBody<{ rules: Rule[] }>({ schema: putRulesBodySchema, what: 'rules', check: ruleProblems });

const checkRulesBody = compileSchemaCheck(putRulesBodySchema, { place: 'body' });

/** Checks a list of rules (e.g. from a scenario file); throws `invalid_request` naming each problem (`rules.0.outcome`). */
export function parseRules(value: unknown): Rule[] {
  const body = { rules: value };
  const details = checkRulesBody(body);
  if (details.length === 0) details.push(...ruleProblems(body));
  if (details.length > 0) throw new ApiError('invalid_request', `Invalid rules: ${details.map((d) => d.message).join('; ')}.`, details);
  return value as Rule[];
}

/**
 * What a schema cannot say of rules: a range upside down, a description that is no regular
 * expression. Nothing of a list longer than the schema allows: the schema already refuses it, and
 * compiling each of its patterns would cost a 1 MiB body 25-30 ms.
 */
function ruleProblems(body: unknown): ErrorDetail[] {
  const rules = (body as { rules?: unknown } | null)?.rules;
  if (!Array.isArray(rules) || rules.length > rulesSchema.maxItems) return [];
  const details: ErrorDetail[] = [];
  rules.forEach((rule: Partial<Rule> | null, index) => {
    const match = typeof rule === 'object' && rule !== null ? rule.match : undefined;
    const range = match?.amount;
    if (typeof range === 'object' && range !== null && typeof range.min === 'number' && typeof range.max === 'number' && range.min > range.max) {
      details.push({ field: `rules.${index}.match.amount`, code: 'invalid_rule', message: `rules.${index}.match.amount: min is above max` });
    }
    if (typeof match?.description === 'string') {
      try {
        new RegExp(match.description, 'iu');
      } catch (error) {
        details.push({ field: `rules.${index}.match.description`, code: 'invalid_rule', message: `rules.${index}.match.description: ${(error as Error).message}` });
      }
    }
  });
  return details;
}

/** The rules in force: fixed ones, and each account's own, which come first. */
export class RuleBook {
  readonly #fixed: CompiledRule[];
  readonly #byAccount = new Map<string, CompiledRule[]>();

  constructor(fixedRules: Rule[] = []) {
    this.#fixed = compile(parseRules(fixedRules), 'rule');
  }

  /** Replaces the rules an account installed (not the fixed ones). */
  setAccountRules(accountId: string, rules: Rule[]): void {
    if (rules.length === 0) this.#byAccount.delete(accountId);
    else this.#byAccount.set(accountId, compile(parseRules(rules), 'account rule'));
  }

  /** The rules an account installed. */
  accountRules(accountId: string): Rule[] {
    return (this.#byAccount.get(accountId) ?? []).map((r) => r.rule);
  }

  /** The rules fixed at start. */
  get fixedRules(): Rule[] {
    return this.#fixed.map((r) => r.rule);
  }

  /** The outcome the first matching rule picks for `subject`, created at `createdAtMs`; none if no rule (or a `none` rule) matches. */
  scheduleFor(subject: RuleSubject, createdAtMs: number): ScheduledOutcome | undefined {
    for (const compiled of [...(this.#byAccount.get(subject.accountId) ?? []), ...this.#fixed]) {
      if (!matches(compiled, subject)) continue;
      const { outcome, after = 0 } = compiled.rule;
      if (outcome === 'none') return undefined;
      return { transition: outcome, at: new Date(createdAtMs + after * 1000).toISOString(), rule: compiled.label };
    }
    return undefined;
  }
}

function compile(rules: Rule[], kind: string): CompiledRule[] {
  return rules.map((rule, index) => ({
    rule,
    label: rule.name ?? `${kind} ${index + 1}`,
    ...(rule.match?.description !== undefined ? { description: new RegExp(rule.match.description, 'iu') } : {}),
  }));
}

function matches({ rule, label, description }: CompiledRule, subject: RuleSubject): boolean {
  const match = rule.match ?? {};
  if (match.accounts !== undefined && !match.accounts.includes(subject.accountId)) return false;
  if (typeof match.amount === 'number' && subject.amount !== match.amount) return false;
  if (typeof match.amount === 'object') {
    if (match.amount.min !== undefined && subject.amount < match.amount.min) return false;
    if (match.amount.max !== undefined && subject.amount > match.amount.max) return false;
  }
  if (description !== undefined && !description.test(subject.description)) return false;
  for (const [key, expected] of Object.entries(match.metadata ?? {})) {
    const metadata = subject.metadata ?? {};
    if (!Object.hasOwn(metadata, key) || JSON.stringify(metadata[key]) !== JSON.stringify(expected)) return false;
  }
  return rule.probability === undefined || rollFor(label, subject.id) < rule.probability;
}

/** A number in [0, 1) fixed by the rule and the request id: the same request always rolls the same. */
function rollFor(label: string, id: string): number {
  const digest = sha256(utf8ToBytes(`${label}\u0000${id}`));
  return (((digest[0]! << 24) | (digest[1]! << 16) | (digest[2]! << 8) | digest[3]!) >>> 0) / 2 ** 32;
}
