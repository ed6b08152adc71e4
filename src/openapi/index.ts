/** The OpenAPI 3.1 document of the sandbox, generated from the route table and `src/schemas`. Browser-safe. */
export { buildOpenApiDocument, OPENAPI_VERSION, type OpenApiOptions } from './document.js';
export { OPENAPI_PATH, openApiDocumentOf, openApiRoute } from './route.js';
export type { JsonObject, JsonValue } from './schema-tools.js';
