/**
 * The one error for a store file whose content cannot be trusted (wrong format or version,
 * unparseable, missing journal entries). The store refuses to start rather than guess, and
 * never writes over such a file: the user may want what is in it.
 */

/** A data or journal file the store will not read, naming the file and what is wrong with it. */
export class StoreFileError extends Error {
  override readonly name = 'StoreFileError';

  constructor(
    readonly file: string,
    readonly problem: string,
  ) {
    super(`${file}: ${problem}. The file was left untouched.`);
  }
}
