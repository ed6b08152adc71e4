/** The error body every 4xx/5xx of the sandbox carries (the spec leaves error bodies open). */
export const errorBodySchema = {
  $id: 'https://lnpr-sandbox.dev/schemas/v1/error.json',
  type: 'object',
  required: ['error'],
  additionalProperties: false,
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message'],
      additionalProperties: false,
      properties: {
        code: { type: 'string', pattern: '^[a-z_]+$' },
        message: { type: 'string', minLength: 1 },
        details: {
          type: 'array',
          minItems: 1,
          items: {
            type: 'object',
            required: ['field', 'code', 'message'],
            additionalProperties: false,
            properties: { field: { type: 'string' }, code: { type: 'string' }, message: { type: 'string' } },
          },
        },
      },
    },
  },
} as const;
