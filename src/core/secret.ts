/**
 * Secrets in answers (a test wallet's or a connection's `nwcUrl`, a webhook endpoint's `whsec_…`):
 * a view never puts one in an answer as a plain string but as a `Secret`, and the pipeline, the
 * one place that knows the caller's key for every route, writes it out for a key that may see
 * secrets and leaves the field out for any other (a read-only key, a public page). So no route
 * checks a permission to hide a secret, and a new route that shows a record holding one cannot
 * forget to: the rule is applied where every answer is written.
 */

/** Whether answers being written now may show secrets; true only inside `writeAnswerJson` for such a key. */
let secretsShown = false;

/** The caller as this rule needs it: what its key may do (an `accounts/accounts.ts` KeyHolder; a leaf here, so no import circle). */
export interface SecretViewer {
  permissions: ReadonlySet<string>;
}

/** A secret of an answer: shown to keys that may see secrets, left out (the whole field) for others. */
export class Secret {
  readonly #value: string;

  constructor(value: string) {
    this.#value = value;
  }

  /** JSON.stringify leaves out a property whose `toJSON` gives undefined. */
  toJSON(): string | undefined {
    return secretsShown ? this.#value : undefined;
  }
}

/** A view `T` whose fields `K` are secrets (written only for keys that may see them). */
export type WithSecrets<T, K extends keyof T> = Omit<T, K> & { [P in K]: Secret };

/**
 * Who sees secrets: a key that may change the account (`create`), which holds them anyway (it made
 * the wallets and endpoints). A read-only key, a key of the accounts API alone and public pages
 * never do (CONTRACT.md: a read-only key never sees a secret).
 */
export function maySeeSecrets(caller: SecretViewer | undefined): boolean {
  return caller?.permissions.has('create') === true;
}

/**
 * An answer's JSON as `caller` may see it: its secrets written for a key that may see them, left
 * out otherwise. Synchronous, so no other answer is written meanwhile.
 */
export function writeAnswerJson(body: unknown, caller: SecretViewer | undefined): string {
  secretsShown = maySeeSecrets(caller);
  try {
    return JSON.stringify(body);
  } finally {
    secretsShown = false;
  }
}
