/**
 * What the commands that test someone else's system share (`lnpr conformance`, `lnpr webhooks
 * check`): their streams, secrets kept out of everything they print (even a usage error or a
 * stack trace), an `--output` directory checked before any work is done, and where the report goes.
 */
import { constants } from 'node:fs';
import { access, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { UsageError } from './usage-error.js';

/** Where such a command writes; the process's streams unless a test says otherwise. */
export interface CommandIo {
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  env: Record<string, string | undefined>;
}

/** The process's own streams and environment. */
export const PROCESS_IO: CommandIo = { stdout: process.stdout, stderr: process.stderr, env: process.env };

/** Runs `command`, passing it `redact`; any error it throws leaves with the secrets redacted. */
export async function runRedacted(redact: (text: string) => string, command: (redact: (text: string) => string) => Promise<void>): Promise<void> {
  try {
    await command(redact);
  } catch (error) {
    if (error instanceof UsageError) throw new UsageError(redact(error.message));
    if (error instanceof Error) {
      error.message = redact(error.message);
      if (error.stack !== undefined) error.stack = redact(error.stack);
    }
    throw error;
  }
}

/** Refuses an `--output` whose directory cannot be written, before the run rather than after it. */
export async function assertWritableDirectory(output: string): Promise<void> {
  try {
    await access(dirname(resolve(output)), constants.W_OK);
  } catch (error) {
    throw new UsageError(`--output ${output}: the directory cannot be written: ${(error as Error).message}`);
  }
}

/** The reports both commands write, by `--reporter` name. */
export interface Reporters<Result> {
  pretty(result: Result): string;
  junit(result: Result): string;
  json(result: Result): string;
}

/**
 * Writes the chosen report, redacted: to `--output` if given, else to stdout (the pretty one only
 * to a file, since its lines were already printed as the run went); a failed run exits 1.
 */
export async function emitReport<Result extends { passed: boolean }>(
  result: Result,
  options: { reporter: keyof Reporters<Result>; reporters: Reporters<Result>; output: string | undefined; redact: (text: string) => string; io: CommandIo },
): Promise<void> {
  const { reporter, reporters, output, redact, io } = options;
  const report = redact(reporters[reporter](result));
  if (output !== undefined) {
    try {
      await writeFile(output, report);
    } catch (error) {
      throw new UsageError(`--output ${output}: ${(error as Error).message}`);
    }
  } else if (reporter !== 'pretty') {
    io.stdout.write(report);
  }
  if (!result.passed) process.exitCode = 1;
}
