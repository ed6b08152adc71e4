/**
 * The keys of the run a faulty implementation serves, as it learns them from the traffic: the
 * default accounts' keys of CONTRACT.md at first, then, when the run makes accounts of its own
 * (`--admin-key`: `POST /sandbox/v1/accounts`), the first custodial and the first NWC account it
 * makes. Faults act "as the main key", "on another account", "for the read-only key" through this
 * book, so the same fault applies whether the suite runs in the default accounts or in its own.
 */
/** The well-known test keys of CONTRACT.md ("Default accounts"). */
export const KEYS = { custodial: 'sk_test_custodial', nwc: 'sk_test_nwc', readonly: 'sk_test_readonly' } as const;

/** The default key with the `accounts` permission (CONTRACT.md, "Default accounts"). */
export const DEFAULT_ADMIN_KEY = 'sk_test_admin';

interface AccountKeys {
  secret: string;
  readOnly?: string;
  mode: 'custodial' | 'nwc';
}

export class RunKeys {
  /** The run's main account's create key. */
  main: string = KEYS.custodial;
  /** Its read-only key. */
  readOnly: string = KEYS.readonly;
  /** The run's NWC account's create key. */
  nwc: string = KEYS.nwc;
  /** The key that made accounts (or the default one). */
  admin: string = DEFAULT_ADMIN_KEY;
  private readonly accounts: AccountKeys[] = [
    { secret: KEYS.custodial, readOnly: KEYS.readonly, mode: 'custodial' },
    { secret: KEYS.nwc, mode: 'nwc' },
  ];
  private madeCustodial = false;
  private madeNwc = false;

  /** Reads an account the run made from the upstream's answer to `POST /sandbox/v1/accounts`. */
  learn(method: string, path: string, key: string | undefined, status: number, body: any): void {
    if (method !== 'POST' || path.split('?')[0] !== '/sandbox/v1/accounts' || status !== 201) return;
    const secret = body?.keys?.secret;
    const readOnly = body?.keys?.readOnly;
    const mode = body?.mode === 'nwc' ? 'nwc' : 'custodial';
    if (typeof secret !== 'string') return;
    this.accounts.push({ secret, ...(typeof readOnly === 'string' ? { readOnly } : {}), mode });
    if (key !== undefined) this.admin = key;
    if (mode === 'custodial' && !this.madeCustodial) {
      this.madeCustodial = true;
      this.main = secret;
      if (typeof readOnly === 'string') this.readOnly = readOnly;
    } else if (mode === 'nwc' && !this.madeNwc) {
      this.madeNwc = true;
      this.nwc = secret;
    }
  }

  /** The create key of the account `key` belongs to (itself for a create key), or undefined for a key of no account. */
  secretOf(key: string | undefined): string | undefined {
    return this.accounts.find((account) => account.secret === key || account.readOnly === key)?.secret;
  }

  /** Whether `key` is an account's read-only key. */
  isReadOnly(key: string | undefined): boolean {
    return key !== undefined && this.accounts.some((account) => account.readOnly === key);
  }

  /** Whether `key` is the key that makes accounts. */
  isAdmin(key: string | undefined): boolean {
    return key === this.admin || key === DEFAULT_ADMIN_KEY;
  }

  /** The create keys of the run's two accounts (the main and the NWC one). */
  runAccounts(): string[] {
    return [this.main, this.nwc];
  }

  /** The create keys of every account known (for a fault that tries "another account"). */
  accountSecrets(): string[] {
    return [...new Set([...this.runAccounts(), ...this.accounts.map((account) => account.secret)])];
  }

  /** Every key known: create keys, read-only keys and the admin key. */
  known(): string[] {
    return [...new Set([...this.accounts.flatMap((account) => [account.secret, ...(account.readOnly ? [account.readOnly] : [])]), this.admin, DEFAULT_ADMIN_KEY])];
  }
}
