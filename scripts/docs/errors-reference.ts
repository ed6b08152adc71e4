/** The errors reference page: every error code (status, message, when) and every detail code. */
import { generatedPage, prose, table } from './markdown.js';

/** The page from the error catalogue, the conditions the OpenAPI document gives, and the detail codes. */
export function errorsReference(
  errors: Readonly<Record<string, { status: number; message: string }>>,
  conditions: Readonly<Record<string, string>>,
  details: Readonly<Record<string, string>>,
): string {
  const errorRows = Object.entries(errors).map(([name, { status, message }]) => [`\`${name}\``, String(status), prose(conditions[name] ?? '', { cell: true }), prose(message, { cell: true })]);
  const detailRows = Object.entries(details).map(([name, meaning]) => [`\`${name}\``, prose(meaning, { cell: true })]);
  return generatedPage({
    title: 'Errors and detail codes',
    order: 3,
    source: 'the error and detail-code catalogues',
    body: [
      'Every error answer has one shape, from the HTTP server and the MSW handlers alike:',
      '',
      '```json',
      '{"error": {"code": "invalid_request", "message": "…", "details": [{"field": "amount", "code": "amount_below_minimum", "message": "…"}]}}',
      '```',
      '',
      'Clients match on `code` (stable); `message` is for people and may change.',
      '',
      '## Error codes',
      '',
      table(['code', 'status', 'when', 'default message'], errorRows),
      '',
      '## Detail codes',
      '',
      '`details[].code` names what is wrong with one field (`details[].field`, in dot form such as `rules.0.outcome`):',
      '',
      table(['code', 'meaning'], detailRows),
    ].join('\n'),
  });
}
