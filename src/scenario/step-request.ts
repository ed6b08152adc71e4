/** What HTTP request each step action stands for, and a short label for progress lines. */
import { actionOf, type RawRequest, type Step } from './scenario-schema.js';

const COLLECTION = '/api/v1/payment-requests';
const CONTROL = '/sandbox/v1';

/** The request a step (references already resolved) sends; `receiver`, `received` and `walletPay` send none. */
export function requestOf(step: Step): RawRequest {
  const action = actionOf(step);
  const id = (value: unknown) => encodeURIComponent(String(value));
  switch (action) {
    case 'reset':
      return step.reset === 'all' ? { method: 'POST', path: `${CONTROL}/reset`, body: { scope: 'all' } } : { method: 'POST', path: `${CONTROL}/reset` };
    case 'create':
      return { method: 'POST', path: COLLECTION, body: step.create };
    case 'read':
      return { method: 'GET', path: `${COLLECTION}/${id(step.read)}` };
    case 'status':
      return { method: 'GET', path: `${COLLECTION}/${id(step.status)}/status` };
    case 'complete':
    case 'fail':
    case 'expire':
      return { method: 'POST', path: `${CONTROL}/payment-requests/${id(step[action])}/${action}` };
    case 'pay':
      return { method: 'POST', path: `${CONTROL}/pay`, body: { invoice: step.pay } };
    case 'advance':
      return { method: 'POST', path: `${CONTROL}/clock/advance`, body: { seconds: step.advance } };
    case 'freeze':
    case 'unfreeze':
      return { method: 'POST', path: `${CONTROL}/clock/${action}` };
    case 'clock':
      return { method: 'GET', path: `${CONTROL}/clock` };
    case 'request':
      return step.request!;
    case 'webhook':
      return { method: 'POST', path: `${CONTROL}/webhook-endpoints`, body: step.webhook };
    case 'events':
      return { method: 'GET', path: `${CONTROL}/events${queryOf(step.events!)}` };
    case 'deliveries':
      return { method: 'GET', path: `${CONTROL}/webhook-deliveries${queryOf(step.deliveries!)}` };
    case 'redeliver':
      return { method: 'POST', path: `${CONTROL}/events/${id(step.redeliver)}/redeliver` };
    case 'receiver':
    case 'received':
    case 'walletPay':
      throw new Error(`a ${action} step sends no request`);
  }
}

/** `?type=…&limit=…` from a step's filters, in the order written; empty for none. */
function queryOf(filters: Record<string, unknown>): string {
  const query = new URLSearchParams(Object.entries(filters).map(([name, value]) => [name, String(value)])).toString();
  return query === '' ? '' : `?${query}`;
}

/**
 * A one-line description of a step for progress output: its title if it has one, else the action
 * and its argument. `resolved` is the step after references; short resolved values (ids) read
 * better than the reference, long ones (invoices) worse, so the reference is kept for those.
 */
export function describeStep(step: Step, resolved?: Step): string {
  const title = (resolved ?? step).title;
  if (title !== undefined) return typeof title === 'string' ? title : JSON.stringify(title);
  const action = actionOf(step);
  const shown = (key: keyof Step): string => {
    const written = step[key];
    const value = resolved?.[key] ?? written;
    if (typeof value === 'string' && value.length > 40 && typeof written === 'string' && written.includes('${')) return written;
    return clip(typeof value === 'string' ? value : JSON.stringify(value));
  };
  let text: string;
  switch (action) {
    case 'reset':
      text = (resolved ?? step).reset === 'all' ? 'reset the account, webhook endpoints and rules too' : 'reset the account';
      break;
    case 'freeze':
    case 'unfreeze':
      text = `${action} the clock`;
      break;
    case 'clock':
      text = 'read the clock';
      break;
    case 'advance':
      text = `advance the clock ${shown('advance')} s`;
      break;
    case 'request': {
      const request = (resolved ?? step).request!;
      text = `${request.method.toUpperCase()} ${clip(request.path)}`;
      break;
    }
    case 'create':
      text = `create ${createSummary((resolved ?? step).create)}`;
      break;
    case 'receiver': {
      const options = (resolved ?? step).receiver;
      const answer = typeof options === 'object' ? options.answer : undefined;
      const answers = answer === undefined ? [] : Array.isArray(answer) ? answer : [answer];
      const then = answers.length > 1 ? `${answers.slice(0, -1).join(', ')}, then ${answers.at(-1)}` : answers.join('');
      text = `start a webhook receiver${answers.length > 0 ? ` answering ${then}` : ''}`;
      break;
    }
    case 'webhook':
      text = `register a webhook endpoint for ${clip((resolved ?? step).webhook?.url ?? '?')}`;
      break;
    case 'received':
      text = `deliveries received by ${shown('received')}`;
      break;
    case 'walletPay': {
      const written = step.walletPay;
      const invoice = (resolved ?? step).walletPay?.invoice;
      const shownInvoice = typeof invoice === 'string' && (invoice.length <= 40 || !written?.invoice.includes('${')) ? clip(invoice) : (written?.invoice ?? '?');
      // Never the URI, nor a part of one written out: it holds the client's secret. A reference says which wallet.
      const wallet = written !== undefined && /^\$\{[^}]+\}$/.test(written.nwcUrl) ? `the NWC wallet ${written.nwcUrl}` : 'an NWC wallet';
      text = `pay ${shownInvoice} through ${wallet}`;
      break;
    }
    case 'events':
    case 'deliveries': {
      const filters = Object.entries((resolved ?? step)[action] ?? {}).map(([name, value]) => `${name}=${String(value)}`);
      text = `list ${action === 'events' ? 'events' : 'delivery attempts'}${filters.length > 0 ? ` ${clip(filters.join(' '))}` : ''}`;
      break;
    }
    default:
      text = `${action} ${shown(action)}`;
  }
  if (step.key !== undefined) text += ` [key ${step.key}]`;
  if (step.as !== undefined) text += ` as ${step.as}`;
  return text;
}

/** `1000 sats "Coffee beans"` for the usual body; JSON for anything else (invalid bodies are the point of some steps). */
function createSummary(body: unknown): string {
  if (body !== null && typeof body === 'object' && !Array.isArray(body)) {
    const { amount, description } = body as { amount?: unknown; description?: unknown };
    if (typeof amount === 'number') return `${amount} sats${typeof description === 'string' ? ` ${JSON.stringify(clip(description, 30))}` : ''}`;
  }
  return clip(JSON.stringify(body) ?? 'nothing');
}

function clip(text: string, max = 60): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
