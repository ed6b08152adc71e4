/** The module hooks of record-postgres-loads.mjs (they run on the loader's thread). */
import { appendFileSync } from 'node:fs';

export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  if (process.env.LNPR_MODULE_LOG && /[\\/]node_modules[\\/]postgres[\\/]/.test(result.url)) appendFileSync(process.env.LNPR_MODULE_LOG, `${result.url}\n`);
  return result;
}
