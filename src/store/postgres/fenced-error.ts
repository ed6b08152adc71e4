/**
 * A write refused because this process no longer leads: the epoch in `lnpr_leader` is not the
 * one the store was opened (or last set) with, so another process took the lease and any write
 * from here could overwrite its. For a replica serving accounts of its own (`replicaId`): another
 * replica took some of its accounts over, believing it gone. Answered like any storage refusal (503 `storage_unavailable`);
 * the store calls its `onFenced` hook so the caller can step down.
 */
import { StorageUnavailableError } from '../../core/store/sandbox-store.js';

export class FencedError extends StorageUnavailableError {
  /** The epoch this store writes under, and the one the database holds (null: no leader row). */
  readonly ownEpoch: number;
  readonly currentEpoch: number | null;

  /** For logs (the message is the one clients get). */
  readonly detail: string;

  constructor(ownEpoch: number, currentEpoch: number | null, why?: string) {
    const detail = `fenced: ${why ?? `this process writes under leader epoch ${ownEpoch}, the database holds ${currentEpoch ?? 'none'}`}`;
    super(new Error(detail));
    this.detail = detail;
    this.name = 'FencedError';
    this.ownEpoch = ownEpoch;
    this.currentEpoch = currentEpoch;
  }
}
